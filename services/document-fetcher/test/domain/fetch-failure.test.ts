import { FailureReasons, failureOf, httpFailure, isRetryableStatus } from '../../src/domain/fetch-failure';

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
    [FailureReasons.connectionRefused, true],
    [FailureReasons.connectionReset, true],
    [FailureReasons.networkError, true],
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
