import { z } from 'zod';
import { DOCUMENT_URL_MAX_LENGTH, isDocumentUrl } from './document-url';

/**
 * The inbound webhook body (spec 2.2) and its validation rules (spec 4.2). Decisions where the
 * contract is silent (README "Inbound webhook"):
 * - unknown fields are accepted and ignored (partners add fields over time), but they are part
 *   of the payload fingerprint, so a changed unknown field under the same request_id is a 409;
 * - strings that are required, and optional ones when present, must hold a non-blank value;
 *   surrounding whitespace is kept as sent except in transaction_type, which is normalised;
 * - request_id: 1-128 visible ASCII characters; documents: 1-50 items; url: see document-url.ts.
 */
/** At most `max` characters, counted as Unicode code points (as JSON Schema's maxLength counts them), not UTF-16 units. */
const withinCharacters = (value: string, max: number) => value.length <= max || [...value].length <= max;

const nonBlank = (field: string, max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .refine((v) => v.trim().length > 0, `${field} must not be empty`)
    // PostgreSQL's text cannot hold U+0000 (the request_id ledger and the delivery log keep these
    // fields), and no partner's number, status or name has a use for it.
    .refine((v) => !v.includes('\u0000'), `${field} must not contain the NUL character (U+0000)`)
    .refine((v) => withinCharacters(v, max), `${field} must be at most ${max} characters`);

const absoluteHttpUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'url is required' : 'url must be a string') })
  .refine(isDocumentUrl, 'url must be an absolute http or https URL')
  .refine((v) => withinCharacters(v, DOCUMENT_URL_MAX_LENGTH), `url must be at most ${DOCUMENT_URL_MAX_LENGTH} characters`);

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
    // Case-insensitive in ASCII only: toUpperCase() alone would turn a dotless "polıcy" into POLICY.
    .transform((v) => {
      const trimmed = v.trim();
      return /^(policy|claim)$/i.test(trimmed) ? trimmed.toUpperCase() : trimmed;
    })
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

/** A \uD800–\uDFFF escape: the only way a JSON text in valid UTF-8 can carry half a surrogate pair. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Field paths of strings (names or values) that are not well-formed Unicode: a lone surrogate
 * from a "\ud800" escape. No UTF-8 encoding exists for one, so it could be neither stored
 * (Avro strings are UTF-8) nor answered back as received.
 */
function illFormedStrings(body: object): string[] {
  const found: string[] = [];
  const stack: Array<[unknown, string]> = [[body, '']];
  while (stack.length > 0 && found.length < 20) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!v.isWellFormed()) found.push(path || '(body)');
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) {
        const name = key.toWellFormed(); // the path is echoed in the message, which must be valid Unicode itself
        const childPath = path ? `${path}.${name}` : name;
        if (!key.isWellFormed()) found.push(`${childPath} (the field name)`);
        stack.push([child, childPath]);
      }
    }
  }
  return found;
}

/**
 * Validates a parsed JSON body; every problem is returned, by field path. `text` is the body as
 * received: strings are checked for lone surrogates only when it holds a surrogate escape.
 */
export function validateWebhookPayload(
  body: unknown,
  text?: string,
): { ok: true; payload: WebhookPayload } | { ok: false; problems: PayloadProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, problems: [{ path: '(body)', message: 'the body must be a JSON object' }] };
  }
  if (depthOf(body) > MAX_DEPTH)
    return { ok: false, problems: [{ path: '(body)', message: `the body is nested deeper than ${MAX_DEPTH} levels` }] };
  if (text !== undefined && SURROGATE_ESCAPE.test(text)) {
    const illFormed = illFormedStrings(body);
    if (illFormed.length > 0) {
      return {
        ok: false,
        problems: illFormed.map((path) => ({
          path,
          message: `${path} holds a lone surrogate (\\uD800-\\uDFFF without its pair), which is not valid Unicode`,
        })),
      };
    }
  }
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
