import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * The inbound webhook body (spec 2.2) and its validation rules (spec 4.2). Decisions where the
 * contract is silent (README "Inbound webhook"):
 * - unknown fields are accepted and ignored (partners add fields over time), but they are part
 *   of the payload fingerprint, so a changed unknown field under the same request_id is a 409;
 * - strings that are required, and optional ones when present, must hold a non-blank value;
 *   surrounding whitespace is kept as sent except in transaction_type, which is normalised;
 * - request_id: 1-128 visible ASCII characters; documents: 1-50 items; url: absolute http(s).
 */
const nonBlank = (field: string, max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .refine((v) => v.trim().length > 0, `${field} must not be empty`)
    .refine((v) => v.length <= max, `${field} must be at most ${max} characters`);

const absoluteHttpUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'url is required' : 'url must be a string') })
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'url must be an absolute http or https URL')
  .refine((v) => v.length <= 2048, 'url must be at most 2048 characters');

const documentSchema = z.looseObject({
  type: nonBlank('type', 100),
  url: absoluteHttpUrl,
  filename: nonBlank('filename', 255).optional(),
});

export const webhookPayloadSchema = z.looseObject({
  request_id: z
    .string({ error: 'request_id must be a string' })
    .regex(/^[\x21-\x7e]{1,128}$/, 'request_id must be 1-128 visible ASCII characters')
    .optional(),
  transaction_number: nonBlank('transaction_number', 100),
  transaction_type: z
    .string({ error: (issue) => (issue.input === undefined ? 'transaction_type is required' : 'transaction_type must be a string') })
    .transform((v) => v.trim().toUpperCase())
    .pipe(z.enum(['POLICY', 'CLAIM'], { error: 'transaction_type must be POLICY or CLAIM (any case)' })),
  status: nonBlank('status', 100),
  documents: z
    .array(documentSchema, { error: (issue) => (issue.input === undefined ? 'documents is required' : 'documents must be an array') })
    .min(1, 'documents must contain at least one item')
    .max(50, 'documents must contain at most 50 items'),
});

export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;

/** One problem, by field path (`documents[0].url`). */
export interface PayloadProblem {
  path: string;
  message: string;
}

function pathOf(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('');
}

/** Deepest nesting accepted anywhere in the body (unknown fields included). */
export const MAX_DEPTH = 64;

/** Nesting depth of a JSON value, without recursion (a hostile body cannot exhaust the stack). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Validates a parsed JSON body; every problem is returned, by field path. */
export function validateWebhookPayload(body: unknown): { ok: true; payload: WebhookPayload } | { ok: false; problems: PayloadProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, problems: [{ path: '(body)', message: 'the body must be a JSON object' }] };
  }
  if (depthOf(body) > MAX_DEPTH)
    return { ok: false, problems: [{ path: '(body)', message: `the body is nested deeper than ${MAX_DEPTH} levels` }] };
  const result = webhookPayloadSchema.safeParse(body);
  if (result.success) return { ok: true, payload: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => {
      const path = pathOf(issue.path);
      // Messages start with their field's own name; nested ones get the full path instead.
      const field = String(issue.path[issue.path.length - 1] ?? '');
      const message =
        issue.path.length > 1 && issue.message.startsWith(`${field} `) ? `${path}${issue.message.slice(field.length)}` : issue.message;
      return { path, message };
    }),
  };
}

/** JSON with object keys sorted at every level and no whitespace. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Fingerprint of a payload for request_id idempotency: hex SHA-256 of its canonical JSON. Key
 * order and whitespace do not matter; any value (also of an unknown field) does. Numbers
 * compare as JSON numbers (1.0 and 1 are the same), strings exactly (case and spaces count).
 */
export function payloadFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
