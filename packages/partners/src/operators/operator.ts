/**
 * An operator of the operator API, as the `operators` topic holds it (schemas/operator.avsc):
 * who they are, what they may do, and the keyed hash of their token (never the token).
 */
export const OPERATOR_ROLES = ['viewer', 'operator'] as const;
/** viewer reads everything the operator API shows; operator also changes partners, replays and issues tokens. */
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export interface Operator {
  operator_id: string;
  name: string;
  role: OperatorRole;
  token_hash: string;
  hash_key_id: string;
  display_prefix: string;
  created_at: number;
  created_by: string;
  revoked_at: number | null;
}

export function isOperatorRole(value: unknown): value is OperatorRole {
  return (OPERATOR_ROLES as readonly unknown[]).includes(value);
}

/** The record as the Avro codec takes it. */
export function operatorToRecord(operator: Operator): Record<string, unknown> {
  return { ...operator };
}

/** An operator from its decoded record; undefined for a role this version does not know (it opens nothing). */
export function operatorFromRecord(record: Record<string, unknown>): Operator | undefined {
  const role = record['role'];
  if (!isOperatorRole(role)) return undefined;
  const time = (value: unknown) => (value instanceof Date ? value.getTime() : Number(value));
  return {
    operator_id: String(record['operator_id']),
    name: String(record['name']),
    role,
    token_hash: String(record['token_hash']),
    hash_key_id: String(record['hash_key_id']),
    display_prefix: String(record['display_prefix']),
    created_at: time(record['created_at']),
    created_by: String(record['created_by']),
    revoked_at: record['revoked_at'] === null || record['revoked_at'] === undefined ? null : time(record['revoked_at']),
  };
}

/** An operator for display: no hash. */
export function describeOperator(operator: Operator): Record<string, unknown> {
  return {
    operator_id: operator.operator_id,
    name: operator.name,
    role: operator.role,
    token_prefix: operator.display_prefix,
    created_at: new Date(operator.created_at).toISOString(),
    created_by: operator.created_by,
    revoked_at: operator.revoked_at === null ? null : new Date(operator.revoked_at).toISOString(),
  };
}
