import { attemptVerdict } from '../../src/domain/attempt-verdict';

const SLOW = 5_000;
const answered = (httpStatus: number, latencyMs = 3) => ({ kind: 'failed' as const, httpStatus, latencyMs });

describe('attemptVerdict', () => {
  it('when the partner answers 200, then it is a success, whatever the attempt', () => {
    expect(attemptVerdict({ kind: 'delivered' }, 1, SLOW)).toBe('success');
    expect(attemptVerdict({ kind: 'delivered' }, 9, SLOW)).toBe('success');
  });

  it.each([500, 503, 429, 404, 401])('when the partner quickly answers %i to a first attempt, then it is inconclusive', (status) => {
    expect(attemptVerdict(answered(status), 1, SLOW)).toBe('inconclusive');
  });

  it.each([2, 3, 9])('when the partner quickly answers an error to attempt %i (a retry), then it is a failure', (attempt) => {
    expect(attemptVerdict(answered(500), attempt, SLOW)).toBe('failure');
  });

  it('when an error answer comes only after slowAnswerMs, then it is a failure even to a first attempt', () => {
    expect(attemptVerdict(answered(500, SLOW - 1), 1, SLOW)).toBe('inconclusive');
    expect(attemptVerdict(answered(500, SLOW), 1, SLOW)).toBe('failure');
  });

  it('when there is no answer (timeout, refused or reset connection, token endpoint down), then it is a failure, whatever the attempt', () => {
    expect(attemptVerdict({ kind: 'failed', httpStatus: null, latencyMs: 1_000 }, 1, SLOW)).toBe('failure');
    expect(attemptVerdict({ kind: 'failed', httpStatus: null, latencyMs: 1 }, 1, SLOW)).toBe('failure');
    expect(attemptVerdict({ kind: 'failed', httpStatus: null, latencyMs: null }, 1, SLOW)).toBe('failure');
  });

  it('when the callback cannot be sent as configured, then it is inconclusive (not the partner’s health)', () => {
    expect(attemptVerdict({ kind: 'undeliverable' }, 1, SLOW)).toBe('inconclusive');
  });
});
