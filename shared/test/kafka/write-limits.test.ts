import { RECORD_BATCH_OVERHEAD_BYTES, chunkBySize, fitsInBatch, recordSizeBound } from '../../src/kafka/write-limits';

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

describe('chunkBySize', () => {
  test('when items add up to more than the limit, then each chunk stays under it and the order is kept', () => {
    const items = Array.from({ length: 25 }, (_, i) => ({ i, size: 100 + (i % 7) * 50 }));
    const limit = 1000;
    const chunks = chunkBySize(items, (item) => item.size, limit);
    expect(chunks.flat().map((item) => item.i)).toEqual(items.map((item) => item.i));
    for (const chunk of chunks)
      expect(chunk.reduce((sum, item) => sum + item.size, 0)).toBeLessThanOrEqual(limit - RECORD_BATCH_OVERHEAD_BYTES);
    expect(chunks.length).toBeGreaterThan(1);
  });

  test('when one item alone is over the limit, then it gets a chunk of its own and the rest go on', () => {
    const chunks = chunkBySize([10, 5000, 10], (n) => n, 1000);
    expect(chunks).toEqual([[10], [5000], [10]]);
  });

  test('when there is nothing, then there is no chunk', () => {
    expect(chunkBySize([], () => 1, 1000)).toEqual([]);
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
