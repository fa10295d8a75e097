import { FailureReasons, failureOf, httpFailure, isRetryableStatus } from '../../src/domain/fetch-failure';
import { nextTierAfter, retryScheduleMs } from '../../src/domain/retry-tiers';

describe('isRetryableStatus', () => {
  test.each([
    [500, true],
    [502, true],
    [503, true],
    [408, true],
    [429, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [410, false],
    [204, false],
  ])('HTTP %i may pass later: %s', (code, expected) => {
    expect(isRetryableStatus(code)).toBe(expected);
    expect(httpFailure(code)).toEqual({ reason: 'HTTP_STATUS', retryable: expected, httpStatus: code, detail: `HTTP ${code}` });
  });
});

describe('failureOf', () => {
  test.each([
    [FailureReasons.timeout, true],
    [FailureReasons.connectionFailed, true],
    [FailureReasons.dnsFailure, true],
    [FailureReasons.tlsFailure, true],
    [FailureReasons.tooLarge, false],
    [FailureReasons.ssrfRefused, false],
    [FailureReasons.unsupportedScheme, false],
    [FailureReasons.tooManyRedirects, false],
    [FailureReasons.invalidUrl, false],
  ] as const)('%s may pass later: %s', (reason, retryable) => {
    expect(failureOf(reason, 'why')).toEqual({ reason, retryable, httpStatus: null, detail: 'why' });
  });
});

describe('nextTierAfter', () => {
  const delays = [10, 20, 30];
  test('when an attempt fails while tiers remain, then it goes to the tier of its number, due after that tier’s delay', () => {
    expect(nextTierAfter(1, delays, 1000)).toEqual({ tier: 1, dueAt: 1010 });
    expect(nextTierAfter(3, delays, 1000)).toEqual({ tier: 3, dueAt: 1030 });
  });

  test('when the attempt after the last tier fails, then there is no tier left', () => {
    expect(nextTierAfter(4, delays, 1000)).toBeNull();
    expect(retryScheduleMs(delays)).toBe(60);
  });
});
