import avro from 'avsc';
import { defaultSchemasDir, readSchemaFile } from '@hookstream/kafka';

/**
 * The Avro side of a policy-status event: its record types from the .avsc files, and the rules
 * of schemas/README.md by which the avsc form differs from the plain 2.1 JSON (which union
 * branch holds an insured's detail, which fields carry JSON text). Event parsing reads these to
 * go from plain JSON to the avsc form; the callback body reads them to go back.
 */

/** Name of the union branch of `Insured.detail` for each insured type (schemas/README.md); other types use `map`. */
export const INSURED_DETAIL_BRANCHES: Readonly<Record<string, string>> = {
  USER: 'io.hookstream.v1.PersonDetail',
  USER_LENDER: 'io.hookstream.v1.PersonDetail',
  USER_BORROWER: 'io.hookstream.v1.PersonDetail',
  BENEFICIARY: 'io.hookstream.v1.PersonDetail',
  OWNER: 'io.hookstream.v1.PersonDetail',
  AGENT: 'io.hookstream.v1.AgentDetail',
  GADGET: 'io.hookstream.v1.GadgetDetail',
  VEHICLE: 'io.hookstream.v1.VehicleDetail',
  TRAVEL: 'io.hookstream.v1.TripDetail',
  FLIGHT: 'io.hookstream.v1.TripDetail',
  GOODS: 'io.hookstream.v1.GoodsDetail',
  PET: 'io.hookstream.v1.PetDetail',
  LOAN: 'io.hookstream.v1.LoanDetail',
  SENDER: 'io.hookstream.v1.PartyDetail',
  RECIPIENT: 'io.hookstream.v1.PartyDetail',
  SHIPPING: 'io.hookstream.v1.ShippingDetail',
  PACKAGE: 'io.hookstream.v1.PackageDetail',
};

/** The map branch of the detail union: any other insured type. */
export const DETAIL_MAP_BRANCH = 'map';

/** `Record.field` of the open JSON objects carried as JSON text (schemas/README.md, "Open JSON objects"). */
export const JSON_TEXT_OBJECT_FIELDS: ReadonlySet<string> = new Set([
  'PersonDetail.additional_info',
  'TripDetail.additional_info',
  'GoodsDetail.additional_info',
  'LoanDetail.additional_info',
]);

/** `Record.field` of the arrays whose items are carried as JSON text, one item each. */
export const JSON_TEXT_ARRAY_FIELDS: ReadonlySet<string> = new Set([
  'PetDetail.vaccination',
  'BenefitTerm.inclusion',
  'BenefitTerm.exclusion',
]);

const typeCache = new Map<string, avro.types.RecordType>();

/** The PolicyStatusEvent Avro type of schemas/policy-status-event.avsc (read once per folder). */
export function policyStatusEventType(schemasDir: string = defaultSchemasDir()): avro.types.RecordType {
  let type = typeCache.get(schemasDir);
  if (!type) {
    type = readSchemaFile(schemasDir, 'policy-status-event.avsc').type as avro.types.RecordType;
    typeCache.set(schemasDir, type);
  }
  return type;
}

/** The PolicyNotification record (the `policy` field): the contract 2.1 body. */
export function policyNotificationType(schemasDir?: string): avro.types.RecordType {
  return policyStatusEventType(schemasDir).field('policy').type as avro.types.RecordType;
}

/** A record's name without its namespace: `io.hookstream.v1.Insured` → `Insured`. */
export function shortName(type: avro.Type): string {
  return (type.name ?? type.typeName).split('.').pop()!;
}

/** The one non-null branch of a `["null", T]` union, or the type itself. */
export function withoutNull(type: avro.Type): avro.Type {
  if (type instanceof avro.types.UnwrappedUnionType) {
    const branches = type.types.filter((t) => t.typeName !== 'null');
    if (branches.length === 1) return branches[0]!;
  }
  return type;
}
