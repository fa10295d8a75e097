import type { Request, Response } from 'express';
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { DecodedBody } from '../../domain/receive-webhook';
import type { BodyAsRead } from '../../domain/webhook-rejection';

/*
 * What HTTP alone says of a webhook request, before the domain sees it: its content type and
 * coding (415), its body's size (413), bytes (UTF-8) and JSON (400).
 */

/**
 * Content codings a body may be sent in. zstd is refused although body-parser would decode it:
 * Node marks its zstd as experimental (v22-v24), and the contract names no coding, so the set
 * stays the one published from the start; a coding can be added later without breaking anyone,
 * while one taken away breaks every partner using it.
 */
export const CONTENT_ENCODINGS: readonly string[] = ['identity', 'gzip', 'deflate', 'br'];

/** Sent with a 415 for the coding (RFC 9110 12.5.3), so a client can fall back; identity is always acceptable. */
export const acceptEncodingHeader = CONTENT_ENCODINGS.filter((c) => c !== 'identity').join(', ');

/** The request's content coding as body-parser reads it: the header lower-cased, identity when absent or empty. */
const contentCodingOf = (req: Request) => (req.get('content-encoding') || 'identity').toLowerCase();

/** `application/json`, optionally with charset utf-8 (JSON is UTF-8: RFC 8259). */
function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((p) => !p.startsWith('charset=') || ['charset=utf-8', 'charset=utf8', 'charset="utf-8"'].includes(p));
}

function unsupportedEncoding(req: Request, res: Response): Refusal {
  res.setHeader('Accept-Encoding', acceptEncodingHeader);
  const accepted = `${CONTENT_ENCODINGS.slice(0, -1).join(', ')} or ${CONTENT_ENCODINGS.at(-1)}`;
  return new Refusal(
    ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
    `Content-Encoding ${JSON.stringify(req.get('content-encoding') ?? '')} is not supported (${accepted} are)`,
  );
}

/** The refusal of a request whose content type or coding is not taken, checked before its body is read; undefined when both are. */
export function refusalOfContent(req: Request, res: Response): Refusal | undefined {
  if (!isJsonContentType(req.get('content-type')))
    return new Refusal(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Content-Type must be application/json');
  // Before the body is read: body-parser would decode more codings than are published.
  if (!CONTENT_ENCODINGS.includes(contentCodingOf(req))) return unsupportedEncoding(req, res);
  return undefined;
}

/** The refusal of a body body-parser could not read (too large, a coding it refuses, cut short), or undefined for any other error. */
export function refusalOfBodyRead(error: unknown, bodyLimitBytes: number, req: Request, res: Response): Refusal | undefined {
  const e = error as { type?: string; status?: number } | undefined;
  if (e?.type === 'entity.too.large') return new Refusal(ErrorCodes.PAYLOAD_TOO_LARGE, `the body is larger than ${bodyLimitBytes} bytes`);
  if (e?.type === 'encoding.unsupported') return unsupportedEncoding(req, res);
  if (e?.type === 'request.aborted' || e?.type === 'request.size.invalid' || e?.status === 400)
    return new Refusal(ErrorCodes.INVALID_PAYLOAD, 'the body could not be read');
  return undefined;
}

/**
 * Refuses bytes that are not UTF-8 instead of turning them into U+FFFD: two bodies differing only
 * in invalid bytes would otherwise be "identical" under one request_id. A byte order mark is kept,
 * so JSON.parse refuses it as before.
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body's text and JSON value, each noted on `read` as soon as known (for the record of a refusal); a Refusal when it is not UTF-8 JSON. */
export function decodeBody(raw: unknown, read: BodyAsRead): DecodedBody {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new Refusal(ErrorCodes.INVALID_PAYLOAD, 'the body is not valid UTF-8 (RFC 8259 requires JSON to be UTF-8)');
  }
  const decoded = Object.assign(read, { text });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Refusal(ErrorCodes.INVALID_PAYLOAD, `the body is not valid JSON: ${(error as Error).message}`);
  }
  // The same object: what the domain learns next of the body is noted on it too.
  return Object.assign(decoded, { parsed });
}
