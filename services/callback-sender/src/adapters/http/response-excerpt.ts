/**
 * Most bytes of a partner's answer kept per attempt, as its response excerpt (shown to the partner
 * in the delivery log). Enough for the error message of a JSON or text answer, small enough that
 * an attempt costs one 1 KiB buffer and each outcome record stays small.
 */
export const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * Keeps the first RESPONSE_EXCERPT_BYTES of a response body while something else reads it: `onData`
 * is a 'data' listener, so the body is read once, at the reader's pace and within its limit.
 */
export class ResponseExcerpt {
  private bytes: Buffer | undefined;
  private length = 0;

  readonly onData = (chunk: Buffer): void => {
    if (this.length === RESPONSE_EXCERPT_BYTES) return;
    // Allocated at the first chunk: an answer without a body costs nothing.
    this.bytes ??= Buffer.allocUnsafe(RESPONSE_EXCERPT_BYTES);
    this.length += chunk.copy(this.bytes, this.length, 0, RESPONSE_EXCERPT_BYTES - this.length);
  };

  /** What was kept, as text (utf8Prefix). */
  text(): string {
    return this.bytes ? utf8Prefix(this.bytes.subarray(0, this.length)) : '';
  }
}

/**
 * `bytes` decoded as UTF-8, less a multi-byte character cut off at the end (the cut at
 * RESPONSE_EXCERPT_BYTES may fall inside one): its partial sequence is dropped rather than shown
 * as a replacement character. Bytes that are not UTF-8 elsewhere (a binary body) do become
 * replacement characters (U+FFFD).
 */
export function utf8Prefix(bytes: Buffer): string {
  // The last character starts at the last byte that is not a continuation byte (10xxxxxx), at most 3 back.
  let start = bytes.length - 1;
  while (start > 0 && bytes.length - start < 4 && (bytes[start]! & 0xc0) === 0x80) start--;
  const end = start >= 0 && bytes.length - start < sequenceLength(bytes[start]!) ? start : bytes.length;
  return bytes.toString('utf8', 0, end);
}

/** How many bytes the UTF-8 sequence a lead byte starts has (1 for ASCII and for bytes that cannot lead one). */
function sequenceLength(lead: number): number {
  if (lead >= 0xc0 && lead < 0xe0) return 2;
  if (lead >= 0xe0 && lead < 0xf0) return 3;
  if (lead >= 0xf0 && lead < 0xf8) return 4;
  return 1;
}
