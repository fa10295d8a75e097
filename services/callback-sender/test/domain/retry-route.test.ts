import { attemptsSoFar, routeAfterFailure } from '../../src/domain/retry-route';
import { SpringDltHeaders, deadLetterHeaders } from '../../src/kafka/dead-letter-headers';

const delays = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];

describe('routeAfterFailure', () => {
  test('the first send failing goes to tier 1 after its delay; the 8th retry failing goes to the dead-letter topic', () => {
    expect(routeAfterFailure(1, delays, 1_000)).toEqual({ kind: 'retry', tier: 1, dueAt: 6_000 });
    expect(routeAfterFailure(8, delays, 0)).toEqual({ kind: 'retry', tier: 8, dueAt: 21_600_000 });
    expect(routeAfterFailure(9, delays, 0)).toEqual({ kind: 'dead-letter' });
  });

  test('the default delays escalate and span hours', () => {
    expect(delays.every((d, i) => i === 0 || d > delays[i - 1]!)).toBe(true);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThan(10 * 3_600_000);
  });
});

describe('attemptsSoFar', () => {
  test('reads the attempts header; a record without it (callback-requests) or with garbage has made none', () => {
    expect(attemptsSoFar({ 'hookstream-attempts': Buffer.from('3') })).toBe(3);
    expect(attemptsSoFar(undefined)).toBe(0);
    expect(attemptsSoFar({ 'hookstream-attempts': 'x' })).toBe(0);
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
