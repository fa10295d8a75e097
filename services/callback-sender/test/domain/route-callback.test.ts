import type { CallbackRequest, DeliveryOutcome } from '../../src/domain/deliver-callback';
import { routeCallback, type RouteCallbackDeps } from '../../src/domain/route-callback';
import { CircuitBreaker } from '../../src/isolation/circuit-breaker';

const request: CallbackRequest = {
  delivery_id: 'd-1',
  event_id: 'e-1',
  partner_id: 'acme',
  endpoint_id: 'ep-1',
  policy_number: 'POL-1',
  policy_version: 3,
  policy_status: 'POLICY_ACTIVE',
  body: '{}',
  created_at: 0,
};
const DELAYS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];

function deps(outcome: DeliveryOutcome, overrides: Partial<RouteCallbackDeps> = {}) {
  const attempts: number[] = [];
  const breaker = new CircuitBreaker({ failureThreshold: 2, openMs: 10_000, now: () => 1_000 });
  const d: RouteCallbackDeps = {
    isSuperseded: () => false,
    breaker: () => breaker,
    attempt: (_r, n) => {
      attempts.push(n);
      return Promise.resolve(outcome);
    },
    retryDelaysMs: DELAYS,
    maxRetryAfterMs: 3_600_000,
    skippedSpreadMs: 0,
    now: () => 1_000,
    ...overrides,
  };
  return { d, attempts, breaker };
}

const failed = (extra: Partial<Extract<DeliveryOutcome, { kind: 'failed' }>> = {}): DeliveryOutcome => ({
  kind: 'failed',
  httpStatus: 500,
  errorClass: 'HTTP_STATUS',
  detail: 'HTTP 500',
  latencyMs: 3,
  ...extra,
});

describe('routeCallback', () => {
  test('a 200 is delivered, as attempt attemptsSoFar + 1', async () => {
    const { d, attempts } = deps({ kind: 'delivered', httpStatus: 200, latencyMs: 2 });
    expect(await routeCallback(request, 2, d)).toEqual({ kind: 'delivered', attempt: 3, httpStatus: 200, latencyMs: 2 });
    expect(attempts).toEqual([3]);
  });

  test('a failed first attempt goes to tier 1 after its delay; the failed 9th attempt is dead-lettered', async () => {
    expect(await routeCallback(request, 0, deps(failed()).d)).toMatchObject({
      kind: 'retry',
      tier: 1,
      dueAt: 6_000,
      attempts: 1,
      skipped: false,
      lastError: 'HTTP 500',
    });
    expect(await routeCallback(request, 8, deps(failed()).d)).toMatchObject({
      kind: 'dead-letter',
      attempts: 9,
      errorClass: 'HTTP_STATUS',
      reason: '9 attempts failed; the last: HTTP 500',
    });
  });

  test("a partner's Retry-After pushes the retry out, never in, and only up to the cap", async () => {
    expect(await routeCallback(request, 0, deps(failed({ httpStatus: 429, retryAfterMs: 60_000 })).d)).toMatchObject({ dueAt: 61_000 });
    expect(await routeCallback(request, 0, deps(failed({ httpStatus: 503, retryAfterMs: 1_000 })).d)).toMatchObject({ dueAt: 6_000 });
    expect(await routeCallback(request, 0, deps(failed({ retryAfterMs: 10 * 3_600_000 })).d)).toMatchObject({ dueAt: 1_000 + 3_600_000 });
  });

  test('an undeliverable record is dead-lettered at once, without a retry', async () => {
    const { d } = deps({ kind: 'undeliverable', errorClass: 'SSRF_REFUSED', detail: '10.0.0.1 is private' });
    expect(await routeCallback(request, 0, d)).toEqual({
      kind: 'dead-letter',
      attempts: 1,
      httpStatus: null,
      errorClass: 'SSRF_REFUSED',
      reason: '10.0.0.1 is private',
      latencyMs: null,
    });
  });

  test('a superseded record is neither attempted nor retried', async () => {
    const { d, attempts } = deps(failed(), { isSuperseded: () => true });
    expect(await routeCallback(request, 4, d)).toEqual({ kind: 'superseded', attempts: 4 });
    expect(attempts).toEqual([]);
  });

  test('while the circuit is open, a record goes back to its tier without an attempt and without using up a retry', async () => {
    const { d, attempts, breaker } = deps(failed());
    breaker.recordFailure();
    breaker.recordFailure(); // threshold 2: open until 11_000
    expect(breaker.state).toBe('open');
    expect(await routeCallback(request, 3, d)).toMatchObject({ kind: 'retry', tier: 3, attempts: 3, skipped: true, dueAt: 11_000 });
    expect(await routeCallback(request, 0, d)).toMatchObject({ kind: 'retry', tier: 1, attempts: 0, skipped: true });
    expect(attempts).toEqual([]);
  });

  test('records skipped while the circuit is open come due spread over the spread after the probe time, never before it', async () => {
    const draws = [0, 0.5, 0.999];
    const { d, breaker } = deps(failed(), { skippedSpreadMs: 10_000, random: () => draws.shift()! });
    breaker.recordFailure();
    breaker.recordFailure(); // open until 11_000
    const dueAts = [];
    for (let i = 0; i < 3; i++) dueAts.push(((await routeCallback(request, 1, d)) as { dueAt: number }).dueAt);
    expect(dueAts).toEqual([11_000, 16_000, 20_990]);
  });

  test('when the circuit opened while the record waited for its slot, then it goes back to its tier unattempted', async () => {
    const { d } = deps({ kind: 'circuit-open' });
    expect(await routeCallback(request, 2, d)).toMatchObject({
      kind: 'retry',
      tier: 2,
      attempts: 2,
      skipped: true,
      errorClass: 'CIRCUIT_OPEN',
    });
  });
});
