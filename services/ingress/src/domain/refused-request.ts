/*
 * What is kept of a refused webhook's request, so its partner can open it later and see it as it
 * arrived: its headers with every credential redacted, and its body, both bounded. The body is the
 * partner's own data, shown only to that partner and to operators; a header named like a credential
 * (@hookstream/contract's CREDENTIAL_HEADER_PARTS: our API key, Authorization, a cookie, a gateway's
 * subscription key, a signature…) has its value redacted, every other is kept as sent. Not an allow
 * list: it hid harmless headers (x-request-source, a partner's own x-…) while the page said only
 * credentials were hidden (issue 46).
 */
import { CREDENTIAL_HEADER_PARTS } from '@hookstream/contract';

/** What a credential header's value is recorded as. */
export const REDACTED = '[redacted]';

/** Bounds: Node already caps a request's header section at 16 KiB; these cap what is stored of it and of the body. */
export const RecordedBounds = {
  headers: 100,
  headerName: 200,
  headerValue: 1024,
  /** The body is kept up to this many bytes, as UTF-8 text. */
  bodyBytes: 16 * 1024,
  problems: 50,
  problemMessage: 500,
} as const;

export interface RecordedHeader {
  name: string;
  value: string;
}

/** The request as the entry saw it: header names and values as received, in order (Node's rawHeaders), and the body's bytes (after its content coding). */
export interface RequestAsReceived {
  rawHeaders: readonly string[];
  bytes?: Buffer;
}

export interface RecordedRequest {
  request_headers: RecordedHeader[];
  headers_truncated: boolean;
  body: string | null;
  body_size: number | null;
  body_truncated: boolean;
}

/** Text that fits Avro (UTF-8, so no lone surrogate) and `max` UTF-16 units. */
const bounded = (text: string, max: number) => text.toWellFormed().slice(0, max).toWellFormed();

/** Whether a header's value is redacted: its whole name, in any case, contains a part named like a credential. */
export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADER_PARTS.some((part) => lower.includes(part));
}

/** The headers as received (names in their case, in order, repeated ones kept), credentials redacted, within bounds. */
export function recordedHeaders(rawHeaders: readonly string[]): { headers: RecordedHeader[]; truncated: boolean } {
  const headers: RecordedHeader[] = [];
  for (let i = 0; i + 1 < rawHeaders.length && headers.length < RecordedBounds.headers; i += 2) {
    // Judged by the whole name, before it is cut to its bound.
    const name = bounded(rawHeaders[i]!, RecordedBounds.headerName);
    const value = isCredentialHeader(rawHeaders[i]!) ? REDACTED : bounded(rawHeaders[i + 1]!, RecordedBounds.headerValue);
    headers.push({ name, value });
  }
  const truncated =
    rawHeaders.length / 2 > RecordedBounds.headers ||
    rawHeaders.some((part, i) => (i % 2 === 0 ? part.length > RecordedBounds.headerName : part.length > RecordedBounds.headerValue));
  return { headers, truncated };
}

/**
 * The body as received, its first bodyBytes as UTF-8 text (a character cut by the bound is left
 * out; bytes that are not UTF-8 show as U+FFFD, so such a body can still be looked at), its size
 * in bytes, and whether it was cut. Null when no body was read.
 */
export function recordedBody(bytes: Buffer | undefined): Pick<RecordedRequest, 'body' | 'body_size' | 'body_truncated'> {
  if (bytes === undefined) return { body: null, body_size: null, body_truncated: false };
  const truncated = bytes.length > RecordedBounds.bodyBytes;
  // Streaming holds back a character the bound cut in two: it would otherwise show as U+FFFD, which the partner never sent.
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, RecordedBounds.bodyBytes), { stream: truncated });
  return { body: text, body_size: bytes.length, body_truncated: truncated };
}

/** What is recorded of a refused request. */
export function recordedRequest(request: RequestAsReceived): RecordedRequest {
  const { headers, truncated } = recordedHeaders(request.rawHeaders);
  return { request_headers: headers, headers_truncated: truncated, ...recordedBody(request.bytes) };
}
