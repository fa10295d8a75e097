import type { EncryptedSecret } from '@hookstream/runtime';

/**
 * A partner as every service sees it: the `partner-config` record (schemas/partner-config.avsc),
 * field for field in the schema's snake_case, with the outbound auth union unwrapped into a
 * `method`-tagged object. Holds no plaintext secret.
 */
export type PartnerStatus = 'ACTIVE' | 'DISABLED';
export type CallbackOrdering = 'LATEST_WINS' | 'NONE';
export type BodyShape = 'FULL' | 'SIMPLIFIED_POLICIES' | 'MAPPED';
export type FieldFormat = 'DATE_ONLY' | 'DATE_TIME_UTC' | 'DATE_TIME_ZONE';
export type JwtAlgorithm = 'HS256' | 'HS384' | 'HS512';
/** How a callback body shows a field without a value: left out (OMIT) or written as null (NULL). */
export type AbsentFields = 'OMIT' | 'NULL';

export const POLICY_STATUSES = ['POLICY_ISSUING', 'POLICY_ACTIVE', 'POLICY_CANCELLED'] as const;

export interface InboundApiKey {
  key_id: string;
  /** base64url HMAC-SHA-256 of the key under the pepper `hash_key_id`. */
  key_hash: string;
  hash_key_id: string;
  display_prefix: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export interface CallbackEndpoint {
  endpoint_id: string;
  /** What the partner calls it (at most ENDPOINT_LIMITS.nameLength); absent or null: none, the id stands for it. */
  name?: string | null;
  /** What it is for (at most ENDPOINT_LIMITS.descriptionLength); absent or null: none. */
  description?: string | null;
  url: string;
  timeout_ms: number;
  /** Policy statuses wanted; empty = all. */
  statuses: string[];
  /** Product codes wanted; empty = all. */
  product_codes: string[];
  ordering: CallbackOrdering;
  /** No new callback is planned for a disabled endpoint (those already queued are still sent). Absent = false. */
  disabled?: boolean;
}

export interface Md5Part {
  kind: 'SECRET' | 'BODY_FIELD' | 'LITERAL';
  /** The body field's dotted path, or the literal text; empty for SECRET. */
  value: string;
}

export type OutboundAuth =
  | { method: 'API_KEY'; header_name: string; api_key: EncryptedSecret }
  | {
      method: 'HMAC_SHA256';
      api_key: EncryptedSecret;
      secret: EncryptedSecret;
      key_header: string;
      timestamp_header: string;
      signature_header: string;
      /** A rotated secret that signs instead of `secret` from next_secret_from on (signing-secret.ts). */
      next_secret?: EncryptedSecret | null;
      next_secret_from?: number | null;
    }
  | { method: 'MD5'; secret: EncryptedSecret; parts: Md5Part[]; placement: 'HEADER' | 'BODY_FIELD'; target: string }
  | { method: 'BEARER_STATIC'; token: EncryptedSecret }
  | {
      method: 'BEARER_JWT';
      secret: EncryptedSecret;
      algorithm: JwtAlgorithm;
      issuer: string;
      lifetime_seconds: number;
      extra_claims_json: string | null;
    }
  | {
      method: 'BEARER_FETCHED';
      token_url: string;
      request_method: string;
      request_headers: Record<string, string>;
      secret_headers: Record<string, EncryptedSecret>;
      request_body_secret: EncryptedSecret | null;
      token_path: string;
      cache_seconds: number | null;
    }
  | { method: 'BASIC'; username: string; password: EncryptedSecret }
  | {
      method: 'STANDARD_WEBHOOKS';
      secret: EncryptedSecret;
      /** The secret before the last rotation, signing beside `secret` until previous_secret_until (signing-secret.ts). */
      previous_secret?: EncryptedSecret | null;
      previous_secret_until?: number | null;
    };

export type AuthMethod = OutboundAuth['method'];

export interface FieldRule {
  source: string;
  target: string;
  format: FieldFormat | null;
  time_zone: string | null;
}

export interface BodyMapping {
  shape: BodyShape;
  rules: FieldRule[];
  /** Body field the MD5 digest is written to, when the contract puts it in the body. */
  signature_field: string | null;
  /**
   * Fields without a value: OMIT (default) leaves them out; NULL writes null for every field of
   * the FULL or SIMPLIFIED_POLICIES shape, and for every rule of MAPPED.
   */
  absent_fields: AbsentFields;
}

export interface Partner {
  partner_id: string;
  name: string;
  status: PartnerStatus;
  /** Increases by one with every change. */
  revision: number;
  updated_at: number;
  api_keys: InboundApiKey[];
  callback_endpoints: CallbackEndpoint[];
  outbound_auth: OutboundAuth | null;
  body_mapping: BodyMapping;
  /** Whether the partner may change its endpoints and signing secret itself (partner API). Absent = true. */
  self_service?: boolean;
}

/** Avro record names of the outbound auth union's branches (avsc wraps unions of records). */
const AUTH_RECORD: Record<AuthMethod, string> = {
  API_KEY: 'io.hookstream.v1.ApiKeyAuth',
  HMAC_SHA256: 'io.hookstream.v1.HmacSha256Auth',
  MD5: 'io.hookstream.v1.Md5Auth',
  BEARER_STATIC: 'io.hookstream.v1.BearerStaticAuth',
  BEARER_JWT: 'io.hookstream.v1.BearerJwtAuth',
  BEARER_FETCHED: 'io.hookstream.v1.BearerFetchedAuth',
  BASIC: 'io.hookstream.v1.BasicAuth',
  STANDARD_WEBHOOKS: 'io.hookstream.v1.StandardWebhooksAuth',
};
const METHOD_OF_RECORD = new Map(Object.entries(AUTH_RECORD).map(([method, record]) => [record, method as AuthMethod]));

/** The value to Avro-encode for the partner-config topic. */
export function partnerToRecord(partner: Partner): Record<string, unknown> {
  let outbound: Record<string, unknown> | null = null;
  if (partner.outbound_auth) {
    const { method, ...fields } = partner.outbound_auth;
    outbound = { [AUTH_RECORD[method]]: fields };
  }
  return { ...partner, outbound_auth: outbound };
}

/** A decoded partner-config record as a Partner. */
export function partnerFromRecord(record: Record<string, unknown>): Partner {
  const wrapped = record.outbound_auth as Record<string, Record<string, unknown>> | null;
  let outbound_auth: OutboundAuth | null = null;
  if (wrapped) {
    const [recordName, fields] = Object.entries(wrapped)[0] ?? [];
    const method = recordName ? METHOD_OF_RECORD.get(recordName) : undefined;
    if (!method || !fields) throw new Error(`unknown outbound auth record ${String(recordName)}`);
    outbound_auth = { method, ...fields } as OutboundAuth;
  }
  // avsc returns records as class instances: copy into plain objects.
  return JSON.parse(JSON.stringify({ ...record, outbound_auth }), reviveBuffers) as Partner;
}

/** JSON.stringify turns Buffers into {type:'Buffer',data}; turn them back. */
function reviveBuffers(_key: string, value: unknown): unknown {
  if (
    value &&
    typeof value === 'object' &&
    (value as { type?: unknown }).type === 'Buffer' &&
    Array.isArray((value as { data?: unknown }).data)
  ) {
    return Buffer.from((value as { data: number[] }).data);
  }
  return value;
}

/** Where each secret of an auth method lives, as [field name, secret] pairs: for masking and decryption contexts. */
export function secretFields(auth: OutboundAuth): Array<[string, EncryptedSecret]> {
  switch (auth.method) {
    case 'API_KEY':
      return [['api_key', auth.api_key]];
    case 'HMAC_SHA256':
      return [
        ['api_key', auth.api_key],
        ['secret', auth.secret],
        ...(auth.next_secret ? [['next_secret', auth.next_secret] as [string, EncryptedSecret]] : []),
      ];
    case 'MD5':
      return [['secret', auth.secret]];
    case 'STANDARD_WEBHOOKS':
      return [
        ['secret', auth.secret],
        ...(auth.previous_secret ? [['previous_secret', auth.previous_secret] as [string, EncryptedSecret]] : []),
      ];
    case 'BEARER_STATIC':
      return [['token', auth.token]];
    case 'BEARER_JWT':
      return [['secret', auth.secret]];
    case 'BEARER_FETCHED':
      return [
        ...Object.entries(auth.secret_headers).map(([name, s]): [string, EncryptedSecret] => [`secret_headers.${name}`, s]),
        ...(auth.request_body_secret ? [['request_body_secret', auth.request_body_secret] as [string, EncryptedSecret]] : []),
      ];
    case 'BASIC':
      return [['password', auth.password]];
  }
}

/** The GCM additional data binding a secret to its partner and field. */
export function secretContext(partnerId: string, field: string): string {
  return `partner-config/${partnerId}/outbound_auth.${field}`;
}
