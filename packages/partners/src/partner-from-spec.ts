import { secretContext, type BodyMapping, type CallbackEndpoint, type OutboundAuth } from './model';
import type { PartnerSpec } from './partner-spec-schema';
import type { SecretBox } from '@hookstream/runtime';

/**
 * From a validated partner spec to the parts of the stored partner record (model.ts): endpoint
 * ids filled in, the body mapping with its signature field, and every secret encrypted, bound
 * to the partner and field so a sealed value cannot be moved to another.
 */

/** Callback endpoints of a spec, with ids. */
export function endpointsFromSpec(spec: PartnerSpec): CallbackEndpoint[] {
  return spec.callback_endpoints.map((e, i) => ({
    endpoint_id: e.endpoint_id ?? `ep-${i + 1}`,
    name: e.name,
    description: e.description,
    url: e.url,
    timeout_ms: e.timeout_ms,
    statuses: e.statuses,
    product_codes: e.product_codes,
    ordering: e.ordering,
    disabled: e.disabled,
  }));
}

/** The body mapping of a spec; the MD5 digest's body field becomes the signature field. */
export function bodyMappingFromSpec(spec: PartnerSpec): BodyMapping {
  const auth = spec.outbound_auth;
  return {
    shape: spec.body.shape,
    rules: spec.body.rules.map((r) => ({
      source: r.source,
      target: r.target ?? r.source.split('.').pop()!,
      format: r.format ?? null,
      time_zone: r.time_zone ?? null,
    })),
    signature_field: auth?.method === 'MD5' && auth.placement === 'BODY_FIELD' ? auth.target : null,
    absent_fields: spec.body.absent_fields,
  };
}

/** Outbound auth of a spec with every secret encrypted, bound to the partner and field. */
export function outboundAuthFromSpec(spec: PartnerSpec, partnerId: string, box: SecretBox): OutboundAuth | null {
  const auth = spec.outbound_auth;
  if (!auth) return null;
  const seal = (field: string, value: string) => box.encrypt(value, secretContext(partnerId, field));
  switch (auth.method) {
    case 'API_KEY':
      return { method: 'API_KEY', header_name: auth.header_name, api_key: seal('api_key', auth.api_key) };
    case 'HMAC_SHA256':
      return {
        method: 'HMAC_SHA256',
        api_key: seal('api_key', auth.api_key),
        secret: seal('secret', auth.secret),
        key_header: auth.key_header,
        timestamp_header: auth.timestamp_header,
        signature_header: auth.signature_header,
        next_secret: null,
        next_secret_from: null,
      };
    case 'MD5':
      return {
        method: 'MD5',
        secret: seal('secret', auth.secret),
        parts: auth.parts.map((p) => ({ kind: p.kind, value: p.kind === 'BODY_FIELD' ? p.path : p.kind === 'LITERAL' ? p.value : '' })),
        placement: auth.placement,
        target: auth.target,
      };
    case 'BEARER_STATIC':
      return { method: 'BEARER_STATIC', token: seal('token', auth.token) };
    case 'BEARER_JWT':
      return {
        method: 'BEARER_JWT',
        secret: seal('secret', auth.secret),
        algorithm: auth.algorithm,
        issuer: auth.issuer,
        lifetime_seconds: auth.lifetime_seconds,
        extra_claims_json: Object.keys(auth.extra_claims).length > 0 ? JSON.stringify(auth.extra_claims) : null,
      };
    case 'BEARER_FETCHED':
      return {
        method: 'BEARER_FETCHED',
        token_url: auth.token_url,
        request_method: auth.request_method,
        request_headers: auth.request_headers,
        secret_headers: Object.fromEntries(
          Object.entries(auth.secret_headers).map(([name, value]) => [name, seal(`secret_headers.${name}`, value)]),
        ),
        request_body_secret: auth.request_body === undefined ? null : seal('request_body_secret', auth.request_body),
        token_path: auth.token_path,
        cache_seconds: auth.cache_seconds ?? null,
      };
    case 'BASIC':
      return { method: 'BASIC', username: auth.username, password: seal('password', auth.password) };
    case 'STANDARD_WEBHOOKS':
      return { method: 'STANDARD_WEBHOOKS', secret: seal('secret', auth.secret), previous_secret: null, previous_secret_until: null };
  }
}
