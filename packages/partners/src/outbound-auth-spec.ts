import { z } from 'zod';
import { headerName, httpUrl, symbol } from './partner-spec-fields';

/**
 * The `outbound_auth` part of a partner spec: how every callback to the partner is
 * authenticated (spec 5.1), one variant per method, with plaintext secrets as the operator
 * gives them (they are encrypted before they are stored, see outboundAuthFromSpec).
 */

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

export const outboundAuthSpec = z.discriminatedUnion(
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
