/*
 * Which inputs the form shows for each outbound auth method: the fields of the spec's
 * `outbound_auth` (shared/src/partners/outbound-auth-spec.ts) laid out for people. The spec alone
 * validates them, on the server; empty inputs are left out so its defaults apply.
 */
export interface AuthField {
  name: string;
  label: string;
  secret?: boolean;
  kind?: 'text' | 'number' | 'json';
  options?: string[];
  placeholder?: string;
}

export const AUTH_METHODS = [
  'API_KEY',
  'HMAC_SHA256',
  'MD5',
  'BEARER_STATIC',
  'BEARER_JWT',
  'BEARER_FETCHED',
  'BASIC',
  'STANDARD_WEBHOOKS',
];

export const AUTH_FIELDS: Record<string, AuthField[]> = {
  API_KEY: [
    { name: 'header_name', label: 'Header', placeholder: 'x-api-key' },
    { name: 'api_key', label: 'API key', secret: true },
  ],
  HMAC_SHA256: [
    { name: 'api_key', label: 'API key', secret: true },
    { name: 'secret', label: 'HMAC secret', secret: true },
    { name: 'key_header', label: 'Key header', placeholder: 'X-API-Key' },
    { name: 'timestamp_header', label: 'Timestamp header', placeholder: 'X-Timestamp' },
    { name: 'signature_header', label: 'Signature header', placeholder: 'X-Signature' },
  ],
  MD5: [
    { name: 'secret', label: 'Secret', secret: true },
    {
      name: 'parts',
      label: 'Signed string parts (JSON)',
      kind: 'json',
      placeholder: '[{"kind":"BODY_FIELD","path":"policy.policy_number"},{"kind":"SECRET"}]',
    },
    { name: 'placement', label: 'Digest goes in', options: ['HEADER', 'BODY_FIELD'] },
    { name: 'target', label: 'Header or body field name', placeholder: 'X-Sign' },
  ],
  BEARER_STATIC: [{ name: 'token', label: 'Token', secret: true }],
  BEARER_JWT: [
    { name: 'secret', label: 'Signing secret', secret: true },
    { name: 'algorithm', label: 'Algorithm', options: ['HS256', 'HS384', 'HS512'] },
    { name: 'issuer', label: 'Issuer (iss)' },
    { name: 'lifetime_seconds', label: 'Lifetime (s)', kind: 'number', placeholder: '300' },
    { name: 'extra_claims', label: 'Extra claims (JSON)', kind: 'json', placeholder: '{}' },
  ],
  BEARER_FETCHED: [
    { name: 'token_url', label: 'Token URL' },
    { name: 'request_method', label: 'Method', options: ['POST', 'GET'] },
    { name: 'request_headers', label: 'Headers (JSON)', kind: 'json', placeholder: '{}' },
    { name: 'secret_headers', label: 'Secret headers (JSON; write-only)', kind: 'json', secret: true, placeholder: '{}' },
    { name: 'request_body', label: 'Request body', secret: true },
    { name: 'token_path', label: 'Token path', placeholder: 'access_token' },
    { name: 'cache_seconds', label: 'Cache (s)', kind: 'number' },
  ],
  BASIC: [
    { name: 'username', label: 'Username' },
    { name: 'password', label: 'Password', secret: true },
  ],
  STANDARD_WEBHOOKS: [{ name: 'secret', label: 'Secret (whsec_…)', secret: true }],
};
