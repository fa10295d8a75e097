import { NotFoundError } from '@hookstream/errors';
import { randomBytes } from 'node:crypto';
import { PartnerChangeRefused } from './key-limits';
import { generateApiKey, type ApiKeyHasher, type NewApiKey } from './api-keys';
import { secretFields, type InboundApiKey, type OutboundAuth, type Partner, type PartnerStatus } from './model';
import { MASK } from './outbound-auth-spec';
import { bodyMappingFromSpec, endpointsFromSpec, outboundAuthFromSpec } from './partner-from-spec';
import { parsePartnerSpec } from './partner-spec';
import { PartnerSpecError } from './partner-spec-error';
import type { PartnerSpec } from './partner-spec-schema';
import type { SecretBox } from '@hookstream/runtime';

/**
 * The partner onboarding use cases: pure functions from the current partner (if any) and an
 * operator's input to the next version of the record. The CLI writes what they return.
 */
export interface PartnerAdminDeps {
  box: SecretBox;
  hasher: ApiKeyHasher;
  policyPaths: Set<string>;
  now?: () => number;
}

function slugify(name: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50);
  return `${base || 'partner'}-${randomBytes(2).toString('hex')}`;
}

function issueKey(deps: PartnerAdminDeps, expiresAt: number | null): { record: InboundApiKey; key: NewApiKey } {
  const key = generateApiKey();
  const { hash, pepperId } = deps.hasher.hash(key.key);
  const now = (deps.now ?? Date.now)();
  if (expiresAt !== null && expiresAt <= now) throw new PartnerSpecError([{ field: 'expires_at', message: 'must be in the future' }]);
  return {
    key,
    record: {
      key_id: key.keyId,
      key_hash: hash,
      hash_key_id: pepperId,
      display_prefix: key.displayPrefix,
      created_at: now,
      expires_at: expiresAt,
      revoked_at: null,
    },
  };
}

/** A new partner from a spec, with its first inbound API key. */
export function createPartner(
  input: unknown,
  deps: PartnerAdminDeps,
  options: { keyExpiresAt?: number | null } = {},
): { partner: Partner; apiKey: NewApiKey } {
  const spec = parsePartnerSpec(input, deps.policyPaths);
  const partnerId = spec.partner_id ?? slugify(spec.name);
  const first = issueKey(deps, options.keyExpiresAt ?? null);
  const partner: Partner = {
    partner_id: partnerId,
    name: spec.name,
    status: spec.status,
    self_service: spec.self_service,
    revision: 1,
    updated_at: (deps.now ?? Date.now)(),
    api_keys: [first.record],
    callback_endpoints: endpointsFromSpec(spec),
    outbound_auth: outboundAuthFromSpec(spec, partnerId, deps.box),
    body_mapping: bodyMappingFromSpec(spec),
  };
  return { partner, apiKey: first.key };
}

/** The spec form of an existing partner, every secret replaced by {@link MASK}: for `show` and for validating updates. */
export function partnerToSpec(partner: Partner): Record<string, unknown> {
  return {
    partner_id: partner.partner_id,
    name: partner.name,
    status: partner.status,
    self_service: partner.self_service ?? true,
    callback_endpoints: partner.callback_endpoints.map((e) => ({
      ...e,
      name: e.name ?? null,
      description: e.description ?? null,
      disabled: e.disabled ?? false,
    })),
    ...(partner.outbound_auth ? { outbound_auth: authToSpec(partner.outbound_auth) } : {}),
    body: {
      shape: partner.body_mapping.shape,
      rules: partner.body_mapping.rules.map((r) => ({
        source: r.source,
        target: r.target,
        ...(r.format ? { format: r.format } : {}),
        ...(r.time_zone ? { time_zone: r.time_zone } : {}),
      })),
      absent_fields: partner.body_mapping.absent_fields,
    },
  };
}

const ROTATION_FIELDS = new Set(['next_secret', 'next_secret_from', 'previous_secret', 'previous_secret_until']);

function authToSpec(auth: OutboundAuth): Record<string, unknown> {
  switch (auth.method) {
    case 'MD5':
      return {
        method: auth.method,
        secret: MASK,
        parts: auth.parts.map((p) =>
          p.kind === 'SECRET'
            ? { kind: p.kind }
            : p.kind === 'BODY_FIELD'
              ? { kind: p.kind, path: p.value }
              : { kind: p.kind, value: p.value },
        ),
        placement: auth.placement,
        target: auth.target,
      };
    case 'BEARER_JWT': {
      const { secret: _secret, extra_claims_json, ...rest } = auth;
      return { ...rest, secret: MASK, extra_claims: extra_claims_json ? (JSON.parse(extra_claims_json) as unknown) : {} };
    }
    case 'BEARER_FETCHED': {
      const { secret_headers, request_body_secret, cache_seconds, ...rest } = auth;
      return {
        ...rest,
        secret_headers: Object.fromEntries(Object.keys(secret_headers).map((name) => [name, MASK])),
        ...(request_body_secret ? { request_body: MASK } : {}),
        ...(cache_seconds === null ? {} : { cache_seconds }),
      };
    }
    default: {
      // A signing-secret rotation under way (signing-secret.ts) is the partner's, not part of the spec.
      const masked: Record<string, unknown> = Object.fromEntries(Object.entries(auth).filter(([field]) => !ROTATION_FIELDS.has(field)));
      for (const [field] of secretFields(auth)) if (!ROTATION_FIELDS.has(field)) masked[field] = MASK;
      return masked;
    }
  }
}

/**
 * Applies a partial spec: each top-level field given (name, status, callback_endpoints,
 * outbound_auth, body) replaces the current one; the rest is kept. A new outbound_auth must
 * carry its secrets in full; keeping the current one keeps its ciphertexts untouched.
 */
export function updatePartner(current: Partner, patch: Record<string, unknown>, deps: PartnerAdminDeps): Partner {
  if ('partner_id' in patch && patch.partner_id !== current.partner_id) {
    throw new PartnerSpecError([{ field: 'partner_id', message: 'cannot be changed' }]);
  }
  const authChanged = 'outbound_auth' in patch;
  const merged: Record<string, unknown> = { ...partnerToSpec(current), ...patch, ...keptDisabled(current, patch) };
  if (!authChanged && current.outbound_auth) {
    // The current auth is kept as it is (ciphertexts untouched); validate the rest against it
    // with stand-in secrets, since the masked ones are refused as secrets on purpose.
    merged.outbound_auth = withStandInSecrets(current.outbound_auth);
  }
  const spec: PartnerSpec = parsePartnerSpec(merged, deps.policyPaths);
  return {
    ...current,
    name: spec.name,
    status: spec.status,
    self_service: spec.self_service,
    revision: current.revision + 1,
    updated_at: (deps.now ?? Date.now)(),
    callback_endpoints: endpointsFromSpec(spec),
    outbound_auth: authChanged ? outboundAuthFromSpec(spec, current.partner_id, deps.box) : current.outbound_auth,
    body_mapping: bodyMappingFromSpec(spec),
  };
}

/**
 * An endpoint the patch names without `disabled` keeps its current one: a partner may disable its
 * own endpoint, and an operator's spec file written before (or without) the field must not enable
 * it again unawares. A new endpoint without it is enabled.
 */
function keptDisabled(current: Partner, patch: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(patch.callback_endpoints)) return {};
  const disabledNow = new Set(current.callback_endpoints.filter((e) => e.disabled === true).map((e) => e.endpoint_id));
  return {
    callback_endpoints: patch.callback_endpoints.map((e: unknown) =>
      e !== null && typeof e === 'object' && !('disabled' in e) && disabledNow.has((e as { endpoint_id?: unknown }).endpoint_id as string)
        ? { ...e, disabled: true }
        : e,
    ),
  };
}

function withStandInSecrets(auth: OutboundAuth): Record<string, unknown> {
  const spec = authToSpec(auth);
  const standIn = auth.method === 'STANDARD_WEBHOOKS' ? `whsec_${Buffer.alloc(24, 1).toString('base64')}` : 'stand-in';
  for (const [field] of secretFields(auth)) if (!field.includes('.') && field in spec) spec[field] = standIn;
  if (auth.method === 'BEARER_FETCHED') {
    spec.secret_headers = Object.fromEntries(Object.keys(auth.secret_headers).map((name) => [name, standIn]));
    if (auth.request_body_secret) spec.request_body = standIn;
  }
  return spec;
}

/** Rotation, step one: a new key that works beside the old ones until they are revoked. */
export function addApiKey(
  current: Partner,
  deps: PartnerAdminDeps,
  options: { expiresAt?: number | null } = {},
): { partner: Partner; apiKey: NewApiKey } {
  const issued = issueKey(deps, options.expiresAt ?? null);
  return {
    partner: {
      ...current,
      revision: current.revision + 1,
      updated_at: (deps.now ?? Date.now)(),
      api_keys: [...current.api_keys, issued.record],
    },
    apiKey: issued.key,
  };
}

/**
 * Rotation in one step: a new key, and every other key still valid expires `overlapMs` from now
 * (or keeps an earlier expiry), so the partner has that long to switch. The new key is shown once.
 */
export function rotateApiKey(
  current: Partner,
  deps: PartnerAdminDeps,
  options: { overlapMs: number; expiresAt?: number | null },
): { partner: Partner; apiKey: NewApiKey; retiring: Array<{ key_id: string; expires_at: number }> } {
  const now = (deps.now ?? Date.now)();
  if (!Number.isFinite(options.overlapMs) || options.overlapMs < 0 || options.overlapMs > MAX_ROTATION_OVERLAP_MS) {
    throw new PartnerSpecError([{ field: 'overlap_hours', message: `must be between 0 and ${MAX_ROTATION_OVERLAP_MS / 3_600_000}` }]);
  }
  const { partner, apiKey } = addApiKey(current, deps, { expiresAt: options.expiresAt ?? null });
  const until = now + options.overlapMs;
  const retiring: Array<{ key_id: string; expires_at: number }> = [];
  const apiKeys = partner.api_keys.map((k) => {
    const valid = k.revoked_at === null && (k.expires_at === null || k.expires_at > now);
    if (k.key_id === apiKey.keyId || !valid || (k.expires_at !== null && k.expires_at <= until)) return k;
    retiring.push({ key_id: k.key_id, expires_at: until });
    return { ...k, expires_at: until };
  });
  return { partner: { ...partner, api_keys: apiKeys }, apiKey, retiring };
}

/** The longest a rotated-out key may keep working beside its successor: 30 days. */
export const MAX_ROTATION_OVERLAP_MS = 30 * 24 * 3_600_000;

/** Rotation, step two: the old key stops working (it stays in the record for the audit trail). */
export function revokeApiKey(current: Partner, keyId: string, deps: Pick<PartnerAdminDeps, 'now'>): Partner {
  const key = current.api_keys.find((k) => k.key_id === keyId);
  // The key id names a resource (a path parameter in the API), not a field of a body: unknown is not found.
  if (!key) throw new NotFoundError('API key', `no API key "${keyId}"`);
  if (key.revoked_at !== null) throw new PartnerChangeRefused('conflict', `API key "${keyId}" is already revoked`);
  const now = (deps.now ?? Date.now)();
  return {
    ...current,
    revision: current.revision + 1,
    updated_at: now,
    api_keys: current.api_keys.map((k) => (k.key_id === keyId ? { ...k, revoked_at: now } : k)),
  };
}

/** Disables (every key refused, no callbacks) or re-enables a partner. */
export function setPartnerStatus(current: Partner, status: PartnerStatus, deps: Pick<PartnerAdminDeps, 'now'>): Partner {
  return { ...current, status, revision: current.revision + 1, updated_at: (deps.now ?? Date.now)() };
}

/** A partner for display: secrets masked, API keys without their hashes. */
export function describePartner(partner: Partner): Record<string, unknown> {
  return {
    ...partnerToSpec(partner),
    revision: partner.revision,
    updated_at: new Date(partner.updated_at).toISOString(),
    api_keys: partner.api_keys.map((k) => ({
      key_id: k.key_id,
      prefix: k.display_prefix,
      created_at: new Date(k.created_at).toISOString(),
      expires_at: k.expires_at === null ? null : new Date(k.expires_at).toISOString(),
      revoked_at: k.revoked_at === null ? null : new Date(k.revoked_at).toISOString(),
    })),
  };
}
