import { consumerPosition, partitionLag } from '../src/consumer-lag';

describe('consumerPosition', () => {
  test('when the group has committed an offset within the partition, then it reads on from there', () => {
    expect(consumerPosition(42n, 10n)).toBe(42n);
  });

  test('when the group has no committed offset (-1), then it starts at the partition’s first offset, as Hookstream’s groups do', () => {
    expect(consumerPosition(-1n, 7n)).toBe(7n);
  });

  test('when the committed offset lies below the partition’s first offset (retention deleted those records), then it starts at the first offset still there', () => {
    expect(consumerPosition(3n, 10n)).toBe(10n);
  });
});

describe('partitionLag', () => {
  const now = 1_000_000;

  test('when no committed record lies between the position and the end, then the lag is 0 records and 0 seconds', () => {
    expect(partitionLag(12n, undefined, now)).toEqual({ records: 0, seconds: 0 });
  });

  test('when records are waiting, then the lag counts from the first of them to the end, and its age is the seconds', () => {
    expect(partitionLag(110n, { offset: 100n, timestamp: now - 2_500 }, now)).toEqual({ records: 10, seconds: 2.5 });
  });

  test('when the group stopped before a transaction’s commit marker, then the first record is past it, so only real records count', () => {
    // Committed 5 (the marker's offset), end 6: the fetch from 5 finds no record before the end.
    expect(partitionLag(6n, undefined, now)).toEqual({ records: 0, seconds: 0 });
    // A record at 6 after a marker at 5, end 7: one record waiting, not two.
    expect(partitionLag(7n, { offset: 6n, timestamp: now }, now).records).toBe(1);
  });

  test('when the producer’s clock is ahead of this one, then the seconds are 0, never negative', () => {
    expect(partitionLag(2n, { offset: 1n, timestamp: now + 5_000 }, now)).toEqual({ records: 1, seconds: 0 });
  });

  test('when the first record found is at or past the end (a stale end), then the lag is 0', () => {
    expect(partitionLag(5n, { offset: 5n, timestamp: now - 1_000 }, now)).toEqual({ records: 0, seconds: 0 });
  });
});
