import { z } from 'zod';
import { POLICY_STATUSES, type BodyMapping, type CallbackEndpoint, type OutboundAuth } from './model';
import { SIMPLIFIED_POLICIES_FIELDS } from './policy-fields';
import type { SecretBox } from './secret-box';
import { secretContext } from './model';

/**
 * What an operator writes to onboard or change a partner (`hookstream partners create --file`,
 * or the same built from flags): plaintext secrets, friendly defaults, unknown keys refused.
 * Validated as a whole; every problem is reported with its field path.
 */

/** Accepts "latest-wins", "LATEST_WINS", "Latest_Wins": the enum symbol in upper snake case. */
const symbol = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase().replace(/-/g, '_') : v), z.enum(values));

const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lower-case letters, digits or "-", starting with a letter or digit');

/** An absolute http(s) URL without credentials in it (credentials belong in outbound_auth). */
export const httpUrl = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: `must use http or https, not ${url.protocol.replace(':', '')}` });
    else if (!url.hostname) ctx.addIssue({ code: 'custom', message: 'must name a host' });
    if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not carry credentials: put them in outbound_auth' });
  });

/** What `partners show` prints in place of a secret; never accepted as one. */
export const MASK = '********';

const secret = (what: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? `${what} is required` : `${what} must be a string`) })
    .min(1, `${what} must not be empty`)
    .refine(
      (v) => !v.includes(MASK),
      'is the mask `partners show` prints: give the real secret, or leave outbound_auth out to keep the current one',
    );
const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be a valid HTTP header name');

const endpointSpec = z
  .object({
    endpoint_id: slug.optional(),
    url: httpUrl,
    timeout_ms: z.number().int().min(100, 'must be at least 100 ms').max(120_000, 'must be at most 120000 ms').default(10_000),
    statuses: z.array(z.enum(POLICY_STATUSES)).default([]),
    product_codes: z.array(z.string().trim().min(1)).default([]),
    ordering: symbol(['LATEST_WINS', 'NONE'] as const).default('LATEST_WINS'),
  })
  .strict();

const md5Part = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('SECRET') }).strict(),
  z.object({ kind: z.literal('BODY_FIELD'), path: z.string().min(1) }).strict(),
  z.object({ kind: z.literal('LITERAL'), value: z.string() }).strict(),
]);

const RESERVED_JWT_CLAIMS = ['iss', 'exp', 'iat', 'nbf'];

export const AUTH_METHODS = [
  'API_KEY',
  'HMAC_SHA256',
  'MD5',
  'BEARER_STATIC',
  'BEARER_JWT',
  'BEARER_FETCHED',
  'BASIC',
  'STANDARD_WEBHOOKS',
] as const;

const authSpec = z.discriminatedUnion(
  'method',
  [
    z.object({ method: z.literal('API_KEY'), header_name: headerName.default('x-api-key'), api_key: secret('api_key') }).strict(),
    z
      .object({
        method: z.literal('HMAC_SHA256'),
        api_key: secret('api_key'),
        secret: secret('secret'),
        key_header: headerName.default('X-API-Key'),
        timestamp_header: headerName.default('X-Timestamp'),
        signature_header: headerName.default('X-Signature'),
      })
      .strict(),
    z
      .object({
        method: z.literal('MD5'),
        secret: secret('secret'),
        parts: z.array(md5Part).min(1, 'must list the parts of the signed string in order'),
        placement: symbol(['HEADER', 'BODY_FIELD'] as const),
        target: z.string().min(1, 'must name the header or body field that carries the digest'),
      })
      .strict(),
    z.object({ method: z.literal('BEARER_STATIC'), token: secret('token') }).strict(),
    z
      .object({
        method: z.literal('BEARER_JWT'),
        secret: secret('secret'),
        algorithm: z.enum(['HS256', 'HS384', 'HS512']).default('HS256'),
        issuer: z.string().trim().min(1, 'issuer is required'),
        lifetime_seconds: z.number().int().min(1).max(86_400).default(300),
        extra_claims: z
          .record(z.string(), z.unknown())
          .refine(
            (claims) => !RESERVED_JWT_CLAIMS.some((c) => c in claims),
            `must not set ${RESERVED_JWT_CLAIMS.join(', ')}: they are set at signing`,
          )
          .default({}),
      })
      .strict(),
    z
      .object({
        method: z.literal('BEARER_FETCHED'),
        token_url: httpUrl,
        request_method: z.enum(['POST', 'GET']).default('POST'),
        request_headers: z.record(headerName, z.string()).default({}),
        secret_headers: z.record(headerName, z.string().min(1)).default({}),
        request_body: z.string().optional(),
        token_path: z.string().min(1).default('access_token'),
        cache_seconds: z.number().int().min(1).max(86_400).optional(),
      })
      .strict(),
    z
      .object({
        method: z.literal('BASIC'),
        username: z
          .string()
          .min(1, 'username is required')
          .refine((u) => !u.includes(':'), 'must not contain ":" (RFC 7617)'),
        password: secret('password'),
      })
      .strict(),
    z
      .object({
        method: z.literal('STANDARD_WEBHOOKS'),
        secret: secret('secret').refine(
          (s) => /^whsec_[A-Za-z0-9+/=]+$/.test(s) && Buffer.from(s.slice(6), 'base64').length >= 24,
          'must be whsec_ followed by base64 of at least 24 bytes',
        ),
      })
      .strict(),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? `method must be one of ${AUTH_METHODS.join(', ')}` : undefined) },
);

const ruleSpec = z
  .object({
    source: z.string().min(1),
    target: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a field name of letters, digits and "_"')
      .optional(),
    format: symbol(['DATE_ONLY', 'DATE_TIME_UTC', 'DATE_TIME_ZONE'] as const).optional(),
    time_zone: z.string().optional(),
  })
  .strict();

const bodySpec = z
  .object({
    shape: symbol(['FULL', 'SIMPLIFIED_POLICIES', 'MAPPED'] as const).default('FULL'),
    rules: z.array(ruleSpec).default([]),
    /**
     * omit (default): fields without a value are left out of the body; null: they are sent as
     * null. A YAML or JSON null means null too: that is how `absent_fields: null` reads.
     */
    absent_fields: z.preprocess((v) => (v === null ? 'NULL' : v), symbol(['OMIT', 'NULL'] as const)).default('OMIT'),
  })
  .strict();

export const partnerSpecSchema = z
  .object({
    partner_id: slug.optional(),
    name: z.string().trim().min(1, 'name is required').max(200),
    status: symbol(['ACTIVE', 'DISABLED'] as const).default('ACTIVE'),
    callback_endpoints: z.array(endpointSpec).default([]),
    outbound_auth: authSpec.optional(),
    body: bodySpec.default({ shape: 'FULL', rules: [], absent_fields: 'OMIT' }),
  })
  .strict();

export type PartnerSpec = z.infer<typeof partnerSpecSchema>;
export type PartnerSpecInput = z.input<typeof partnerSpecSchema>;

/** One refusal: the field path and what is wrong. */
export interface SpecProblem {
  field: string;
  message: string;
}

/** Thrown when a partner spec is refused; lists every problem by field path. */
export class PartnerSpecError extends Error {
  constructor(readonly problems: SpecProblem[]) {
    super(`partner refused:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
    this.name = 'PartnerSpecError';
  }
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks what the schema alone cannot: mapping sources exist in the 2.1 body, targets are
 * unique, formats have what they need, MD5 parts name fields the body will have, and a
 * partner with callbacks says how they are authenticated.
 */
function crossFieldProblems(spec: PartnerSpec, policyPaths: Set<string>): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const { shape, rules } = spec.body;
  const topLevel =
    shape === 'SIMPLIFIED_POLICIES'
      ? new Set<string>(SIMPLIFIED_POLICIES_FIELDS)
      : new Set([...policyPaths].filter((p) => !p.includes('.')));

  const targets = new Map<string, number>();
  rules.forEach((rule, i) => {
    const at = `body.rules[${i}]`;
    const nestedAllowed = shape === 'MAPPED';
    const known = nestedAllowed ? policyPaths.has(rule.source) : topLevel.has(rule.source);
    if (!known) {
      problems.push({
        field: `${at}.source`,
        message:
          rule.source.includes('.') && policyPaths.has(rule.source)
            ? `"${rule.source}" is nested: only the MAPPED shape can lift nested fields`
            : `"${rule.source}" is not a field of the ${shape === 'SIMPLIFIED_POLICIES' ? 'simplified policies body' : 'policy body (spec 2.1)'}`,
      });
    }
    const target = rule.target ?? rule.source.split('.').pop()!;
    if (targets.has(target))
      problems.push({ field: `${at}.target`, message: `"${target}" is also the target of body.rules[${targets.get(target)}]` });
    targets.set(target, i);
    if (rule.format === 'DATE_TIME_ZONE' && !rule.time_zone)
      problems.push({ field: `${at}.time_zone`, message: 'is required with format DATE_TIME_ZONE' });
    if (rule.time_zone && !isTimeZone(rule.time_zone))
      problems.push({ field: `${at}.time_zone`, message: `"${rule.time_zone}" is not an IANA time zone` });
    if (rule.time_zone && !rule.format) problems.push({ field: `${at}.time_zone`, message: 'needs a format' });
  });
  if (shape === 'MAPPED' && rules.length === 0)
    problems.push({ field: 'body.rules', message: 'the MAPPED shape needs at least one rule (the fields to send)' });

  // Field names of the body the partner receives, for MD5 parts and the signature field.
  const renamedSources = new Set(rules.map((r) => r.source));
  const output =
    shape === 'MAPPED' ? new Set(targets.keys()) : new Set([...[...topLevel].filter((f) => !renamedSources.has(f)), ...targets.keys()]);
  const outputPaths = new Set(output);
  if (shape === 'FULL') for (const p of policyPaths) if (p.includes('.') && output.has(p.split('.')[0]!)) outputPaths.add(p);

  const auth = spec.outbound_auth;
  if (auth?.method === 'MD5') {
    auth.parts.forEach((part, i) => {
      if (part.kind === 'BODY_FIELD' && !outputPaths.has(part.path)) {
        problems.push({
          field: `outbound_auth.parts[${i}].path`,
          message: `"${part.path}" is not a field of the body this partner receives`,
        });
      }
    });
    if (!auth.parts.some((p) => p.kind === 'SECRET'))
      problems.push({ field: 'outbound_auth.parts', message: 'must include the SECRET, or anyone could forge the digest' });
    if (auth.placement === 'BODY_FIELD' && output.has(auth.target))
      problems.push({ field: 'outbound_auth.target', message: `"${auth.target}" is already a field of the body` });
    if (auth.placement === 'HEADER' && !headerName.safeParse(auth.target).success)
      problems.push({ field: 'outbound_auth.target', message: 'must be a valid HTTP header name' });
  }

  if (spec.callback_endpoints.length > 0 && !auth) {
    problems.push({
      field: 'outbound_auth',
      message: 'is required when the partner has callback endpoints (every callback is authenticated, spec 5.1)',
    });
  }
  const ids = spec.callback_endpoints.map((e, i) => e.endpoint_id ?? `ep-${i + 1}`);
  ids.forEach((id, i) => {
    if (ids.indexOf(id) !== i) problems.push({ field: `callback_endpoints[${i}].endpoint_id`, message: `"${id}" is used twice` });
  });
  return problems;
}

/** Validates an operator's spec; throws PartnerSpecError naming every problem. */
export function parsePartnerSpec(input: unknown, policyPaths: Set<string>): PartnerSpec {
  const result = partnerSpecSchema.safeParse(input);
  if (!result.success) {
    throw new PartnerSpecError(
      result.error.issues.map((issue) => ({
        field:
          issue.path.length > 0
            ? issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('')
            : '(spec)',
        message: issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : issue.message,
      })),
    );
  }
  const problems = crossFieldProblems(result.data, policyPaths);
  if (problems.length > 0) throw new PartnerSpecError(problems);
  return result.data;
}

/** Callback endpoints of a spec, with ids. */
export function endpointsFromSpec(spec: PartnerSpec): CallbackEndpoint[] {
  return spec.callback_endpoints.map((e, i) => ({
    endpoint_id: e.endpoint_id ?? `ep-${i + 1}`,
    url: e.url,
    timeout_ms: e.timeout_ms,
    statuses: e.statuses,
    product_codes: e.product_codes,
    ordering: e.ordering,
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
      return { method: 'STANDARD_WEBHOOKS', secret: seal('secret', auth.secret) };
  }
}
