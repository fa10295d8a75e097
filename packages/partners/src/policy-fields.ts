import avro from 'avsc';
import { readSchemaFile } from '@hookstream/kafka';

/** Top-level fields of the simplified asynchronous `policies` flow (spec 2.1). */
export const SIMPLIFIED_POLICIES_FIELDS = ['partner_transaction_number', 'transaction_number', 'product_code', 'policies'] as const;

function unwrapNullable(type: avro.Type): avro.Type {
  if (type instanceof avro.types.UnwrappedUnionType || type instanceof avro.types.WrappedUnionType) {
    const branches = type.types.filter((t) => t.typeName !== 'null');
    return branches.length === 1 ? branches[0]! : type;
  }
  return type;
}

function collect(type: avro.types.RecordType, prefix: string, into: Set<string>): void {
  for (const field of type.fields) {
    const path = `${prefix}${field.name}`;
    into.add(path);
    const inner = unwrapNullable(field.type);
    if (inner instanceof avro.types.RecordType) collect(inner, `${path}.`, into);
  }
}

/**
 * Every field path of the outbound policy body (spec 2.1), derived from the PolicyNotification
 * record of schemas/policy-status-event.avsc so the mapping language and the event schema can
 * never disagree: `status`, `policy_holder.full_name`, `calculation.gwp`, … Arrays (documents,
 * insureds, policies) are addressed whole.
 */
export function policyBodyFieldPaths(schemasDir: string): Set<string> {
  const event = readSchemaFile(schemasDir, 'policy-status-event.avsc').type as avro.types.RecordType;
  const policy = unwrapNullable(event.field('policy').type) as avro.types.RecordType;
  const paths = new Set<string>();
  collect(policy, '', paths);
  return paths;
}
