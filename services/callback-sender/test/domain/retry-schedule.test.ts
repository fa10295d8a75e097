import { retryHistory, nextTierAfterFailure, tierAtLeast } from '../../src/domain/retry-schedule';
import { SpringDltHeaders, deadLetterHeaders } from '../../src/kafka/dead-letter-headers';

const delays = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];

describe('nextTierAfterFailure', () => {
  test('the first send failing goes to tier 1 after its delay; the 8th retry failing goes to the dead-letter topic', () => {
    expect(nextTierAfterFailure(1, delays, 1_000)).toEqual({ kind: 'retry', tier: 1, dueAt: 6_000 });
    expect(nextTierAfterFailure(8, delays, 0)).toEqual({ kind: 'retry', tier: 8, dueAt: 21_600_000 });
    expect(nextTierAfterFailure(9, delays, 0)).toEqual({ kind: 'dead-letter' });
  });

  test('a retry that must wait longer than its tier (a Retry-After) goes to the first later tier whose delay covers it, at most the longest', () => {
    expect(nextTierAfterFailure(1, delays, 1_000, 60_000)).toEqual({ kind: 'retry', tier: 3, dueAt: 121_000 });
    expect(nextTierAfterFailure(2, delays, 0, 1_000)).toEqual({ kind: 'retry', tier: 2, dueAt: 30_000 });
    expect(nextTierAfterFailure(1, delays, 0, 10 * 3_600_000)).toEqual({ kind: 'retry', tier: 8, dueAt: 21_600_000 });
  });

  test('the default delays escalate and span hours', () => {
    expect(delays.every((d, i) => i === 0 || d > delays[i - 1]!)).toBe(true);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThan(10 * 3_600_000);
  });
});

describe('tierAtLeast', () => {
  test('the first tier from the given one whose delay is long enough; else the longest from there, whatever the order of the delays', () => {
    expect(tierAtLeast(0, 1, delays)).toBe(1);
    expect(tierAtLeast(5_001, 1, delays)).toBe(2);
    expect(tierAtLeast(1_000, 4, delays)).toBe(4);
    expect(tierAtLeast(Infinity, 1, delays)).toBe(8);
    expect(tierAtLeast(Infinity, 1, [300, 1_500, 300, 300])).toBe(2);
    expect(tierAtLeast(Infinity, 3, [300, 1_500, 300, 300])).toBe(3);
  });
});

describe('retryHistory', () => {
  test('reads attempts, skips and the first failure; a record without them (callback-requests) or with garbage has none', () => {
    expect(
      retryHistory({
        'hookstream-attempts': Buffer.from('3'),
        'hookstream-skips': Buffer.from('2'),
        'hookstream-first-failure-at': '1700000000000',
      }),
    ).toEqual({ attempts: 3, skips: 2, firstFailureAt: 1_700_000_000_000 });
    expect(retryHistory(undefined)).toEqual({ attempts: 0, skips: 0, firstFailureAt: null });
    expect(retryHistory({ 'hookstream-attempts': 'x', 'hookstream-skips': '-1', 'hookstream-first-failure-at': 'y' })).toEqual({
      attempts: 0,
      skips: 0,
      firstFailureAt: null,
    });
  });
});

describe('deadLetterHeaders', () => {
  test("uses Spring Kafka's DLT names and encodings: partition as a 4-byte and offset as an 8-byte big-endian integer", () => {
    const headers = deadLetterHeaders({
      originalTopic: 'callback-requests',
      originalPartition: 5,
      originalOffset: 1234567890123n,
      originalTimestamp: 1767840000000n,
      errorClass: 'HTTP_STATUS',
      reason: 'HTTP 201',
    });
    expect(headers[SpringDltHeaders.originalTopic]).toBe('callback-requests');
    expect((headers[SpringDltHeaders.originalPartition] as Buffer).readInt32BE()).toBe(5);
    expect((headers[SpringDltHeaders.originalOffset] as Buffer).readBigInt64BE()).toBe(1234567890123n);
    expect((headers[SpringDltHeaders.originalTimestamp] as Buffer).readBigInt64BE()).toBe(1767840000000n);
    expect(headers[SpringDltHeaders.exceptionMessage]).toBe('HTTP 201');
  });
});
