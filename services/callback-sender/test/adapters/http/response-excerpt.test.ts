import { ResponseExcerpt, utf8Prefix } from '../../../src/adapters/http/response-excerpt';

/** What ResponseExcerpt keeps of a body arriving in `chunks`. */
function excerptOf(...chunks: Buffer[]): string {
  const excerpt = new ResponseExcerpt();
  for (const chunk of chunks) excerpt.onData(chunk);
  return excerpt.text();
}

const ascii = (n: number) => Buffer.from('a'.repeat(n));

describe('the response excerpt: the first 1,024 bytes of an answer, as UTF-8', () => {
  test('an ASCII answer longer than the cap is cut at the cap, across chunks', () => {
    expect(excerptOf(ascii(600), ascii(600), ascii(600))).toBe('a'.repeat(1024));
  });

  test('a multi-byte character straddling the cap is dropped whole, not half shown', () => {
    // '€' is 3 bytes, '😀' 4: they fit when they end at byte 1,024 and are dropped when they would pass it.
    expect(excerptOf(ascii(1021), Buffer.from('€tail'))).toBe(`${'a'.repeat(1021)}€`);
    expect(excerptOf(ascii(1022), Buffer.from('€tail'))).toBe('a'.repeat(1022));
    expect(excerptOf(ascii(1023), Buffer.from('€tail'))).toBe('a'.repeat(1023));
    expect(excerptOf(ascii(1020), Buffer.from('😀tail'))).toBe(`${'a'.repeat(1020)}😀`);
    expect(excerptOf(ascii(1021), Buffer.from('😀tail'))).toBe('a'.repeat(1021));
    expect(excerptOf(ascii(1023), Buffer.from('é'))).toBe('a'.repeat(1023));
  });

  test('a short answer is kept whole, multi-byte characters and all, even split between chunks', () => {
    const text = '{"error":"nomor polis tidak ditemukan — 日本 😀"}';
    const bytes = Buffer.from(text);
    const split = bytes.indexOf(Buffer.from('日')) + 1; // inside the character
    expect(excerptOf(bytes.subarray(0, split), bytes.subarray(split))).toBe(text);
  });

  test('an empty answer is an empty excerpt', () => {
    expect(excerptOf()).toBe('');
    expect(excerptOf(Buffer.alloc(0))).toBe('');
    expect(utf8Prefix(Buffer.alloc(0))).toBe('');
  });

  test('bytes that are not UTF-8 inside the excerpt become replacement characters', () => {
    expect(utf8Prefix(Buffer.from([0xff, 0x41, 0x80, 0x42]))).toBe('\ufffdA\ufffdB');
  });
});
