/*
 * The outbound auth part of the partner form: which inputs each method shows (the fields of the
 * spec's `outbound_auth`, packages/partners/src/outbound-auth-spec.ts, laid out for people), and the
 * object they make. The spec alone validates them, on the server; empty inputs are left out so its
 * defaults apply. Secret inputs are password fields and never filled in from the current partner.
 */
import type { ComponentChildren } from 'preact';
import { SelectField } from '../components/select-field';

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

export function AuthInput({
  field,
  problem,
  described,
}: {
  field: AuthField;
  problem: ComponentChildren;
  described: Record<string, unknown>;
}) {
  const name = `outbound_auth.${field.name}`;
  return (
    <>
      <label>
        <span>
          {field.label}
          {field.secret ? ' (secret: write-only)' : ''}
        </span>
        {field.kind === 'json' ? (
          <textarea name={name} rows={3} placeholder={field.placeholder} {...described} />
        ) : field.options ? (
          <SelectField name={name} initial={field.options[0] ?? ''} options={field.options.map((o) => [o, o])} attributes={described} />
        ) : field.secret ? (
          <input name={name} type="password" autoComplete="new-password" placeholder={field.placeholder} {...described} />
        ) : (
          <input name={name} type="text" autoComplete="off" placeholder={field.placeholder} {...described} />
        )}
      </label>
      {problem}
    </>
  );
}

/** The outbound_auth object of the form's fields for `method` (empty fields left out: the spec's defaults apply). */
export function authFrom(method: string, text: (name: string) => string): Record<string, unknown> {
  const auth: Record<string, unknown> = { method };
  for (const f of AUTH_FIELDS[method] ?? []) {
    const value = text(`outbound_auth.${f.name}`);
    if (value === '') continue;
    auth[f.name] = f.kind === 'json' ? parseJson(value) : f.kind === 'number' ? Number(value) : value;
  }
  return auth;
}

/** JSON text as a value; text that is not JSON is sent as it is, for the API to refuse by its field. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
