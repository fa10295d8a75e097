import { RECORD_BATCH_OVERHEAD_BYTES, fitsInBatch, recordSizeBound } from '../src/write-limits';

describe('recordSizeBound', () => {
  test('when a record has a key, a value and headers, then the bound covers every byte of them and their framing', () => {
    const record = { key: 'policy-1', value: Buffer.alloc(1000), headers: { 'partner-id': 'p', many: ['a', 'bb'] } };
    const payload = 'policy-1'.length + 1000 + 'partner-id'.length + 1 + 2 * 'many'.length + 3;
    expect(recordSizeBound(record)).toBeGreaterThan(payload);
    expect(recordSizeBound(record)).toBeLessThan(payload + 100);
  });

  test('when strings hold multi-byte characters, then they are counted in bytes', () => {
    expect(recordSizeBound({ value: 'é'.repeat(100) }) - recordSizeBound({ value: 'e'.repeat(100) })).toBe(100);
  });
});

describe('fitsInBatch', () => {
  test('when a record is just under or over the limit, then it is judged by its bound plus the batch header', () => {
    const record = { value: Buffer.alloc(900) };
    const needed = recordSizeBound(record) + RECORD_BATCH_OVERHEAD_BYTES;
    expect(fitsInBatch(record, needed)).toBe(true);
    expect(fitsInBatch(record, needed - 1)).toBe(false);
  });
});
