import type { CallbackRequest, DeliveryOutcome } from '../../src/domain/deliver-callback';
import type { RetryHistory } from '@hookstream/kafka';
import { sendCallback, type SendCallbackDeps } from '../../src/domain/send-callback';
import { SendsInFlight } from '../../src/domain/sends-in-flight';
import { CircuitBreaker } from '../../src/domain/circuit-breaker';

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
const SCHEDULE = DELAYS.reduce((a, b) => a + b, 0);
/** A record's history: `attempts` made, nothing else. */
const after = (attempts: number, more: Partial<RetryHistory> = {}): RetryHistory => ({ attempts, skips: 0, firstFailureAt: null, ...more });

function deps(outcome: DeliveryOutcome, overrides: Partial<SendCallbackDeps> = {}) {
  const attempts: number[] = [];
  const breaker = new CircuitBreaker({ failureThreshold: 2, openMs: 10_000, now: () => 1_000 });
  const d: SendCallbackDeps = {
    partners: { get: () => undefined },
    versions: { isSuperseded: () => Promise.resolve(false) },
    delivered: { wasDelivered: () => Promise.resolve(false), recordDelivered: () => Promise.resolve() },
    sendsInFlight: new SendsInFlight(),
    breakers: { for: () => breaker },
    limiter: { run: (_partnerId, task) => task() },
    deliver: (_r, n) => {
      attempts.push(n);
      return Promise.resolve(outcome);
    },
    retryDelaysMs: DELAYS,
    maxRetryAfterMs: 3_600_000,
    now: () => 1_000,
    ...overrides,
  };
  return { d, attempts, breaker };
}

/** The headers of the request an attempt made, as deliverCallback hands them on (secret-bearing values redacted). */
const SENT = { 'content-type': 'application/json', 'x-api-key': '[redacted]', 'x-hookstream-attempt': '1' };
const failed = (extra: Partial<Extract<DeliveryOutcome, { kind: 'failed' }>> = {}): DeliveryOutcome => ({
  kind: 'failed',
  httpStatus: 500,
  errorClass: 'HTTP_STATUS',
  detail: 'HTTP 500',
  latencyMs: 3,
  responseExcerpt: '{"error":"busy"}',
  requestHeaders: SENT,
  ...extra,
});

describe('sendCallback', () => {
  test("a 200 is delivered, as attempt attemptsSoFar + 1, with the start of the partner's answer and the request's headers", async () => {
    const { d, attempts } = deps({ kind: 'delivered', httpStatus: 200, latencyMs: 2, responseExcerpt: 'thanks', requestHeaders: SENT });
    expect(await sendCallback(request, after(2), d)).toEqual({
      kind: 'delivered',
      attempt: 3,
      httpStatus: 200,
      latencyMs: 2,
      responseExcerpt: 'thanks',
      requestHeaders: SENT,
    });
    expect(attempts).toEqual([3]);
  });

  test('a failed first attempt goes to tier 1 after its delay; the failed 9th attempt is dead-lettered', async () => {
    expect(await sendCallback(request, after(0), deps(failed()).d)).toMatchObject({
      kind: 'retry',
      tier: 1,
      dueAt: 6_000,
      attempts: 1,
      skipped: false,
      lastError: 'HTTP 500',
      responseExcerpt: '{"error":"busy"}',
      requestHeaders: SENT,
    });
    expect(await sendCallback(request, after(8), deps(failed()).d)).toMatchObject({
      kind: 'dead-letter',
      attempts: 9,
      errorClass: 'HTTP_STATUS',
      reason: '9 attempts failed; the last: HTTP 500',
      responseExcerpt: '{"error":"busy"}',
      requestHeaders: SENT,
    });
  });

  test("a partner's Retry-After pushes the retry out to the first tier whose delay covers it, never in, and only up to the cap", async () => {
    const retryAfter = (ms: number) => sendCallback(request, after(0), deps(failed({ httpStatus: 429, retryAfterMs: ms })).d);
    expect(await retryAfter(60_000)).toMatchObject({ tier: 3, dueAt: 121_000, attempts: 1 });
    expect(await retryAfter(1_000)).toMatchObject({ tier: 1, dueAt: 6_000 });
    // capped at maxRetryAfterMs (1 h): tier 6's delay
    expect(await retryAfter(10 * 3_600_000)).toMatchObject({ tier: 6, dueAt: 1_000 + 3_600_000 });
  });

  test('an undeliverable record is dead-lettered at once, without a retry', async () => {
    const { d } = deps({ kind: 'undeliverable', errorClass: 'SSRF_REFUSED', detail: '10.0.0.1 is private' });
    expect(await sendCallback(request, after(0), d)).toEqual({
      kind: 'dead-letter',
      attempts: 1,
      httpStatus: null,
      errorClass: 'SSRF_REFUSED',
      reason: '10.0.0.1 is private',
      latencyMs: null,
      responseExcerpt: null,
      requestHeaders: null,
    });
  });

  test('a superseded record is neither attempted nor retried', async () => {
    const { d, attempts } = deps(failed(), { versions: { isSuperseded: () => Promise.resolve(true) } });
    expect(await sendCallback(request, after(4), d)).toEqual({ kind: 'superseded', attempts: 4 });
    expect(attempts).toEqual([]);
  });

  test('while the circuit is open, a record goes back to a tier without an attempt and without using up a retry, due no sooner than the probe', async () => {
    const { d, attempts, breaker } = deps(failed());
    breaker.recordFailure();
    breaker.recordFailure(); // threshold 2: open until 11_000, 10 s from now
    expect(breaker.state).toBe('open');
    // 10 s to the probe: tier 2 (30 s), the first whose delay covers it
    expect(await sendCallback(request, after(3), d)).toMatchObject({
      kind: 'retry',
      tier: 2,
      attempts: 3,
      skipped: true,
      skips: 1,
      dueAt: 31_000,
      requestHeaders: null,
    });
    expect(await sendCallback(request, after(0), d)).toMatchObject({ kind: 'retry', tier: 2, attempts: 0, skipped: true, skips: 1 });
    expect(attempts).toEqual([]);
  });

  test('a record skipped again and again waits longer each time, as its retries would: the k-th skip in a row waits as long as tier k', async () => {
    const { d, breaker } = deps(failed());
    breaker.recordFailure();
    breaker.recordFailure(); // open until 11_000
    const waits = [];
    for (let skips = 0; skips < 10; skips++) {
      const routed = await sendCallback(request, after(1, { skips, firstFailureAt: 1_000 }), d);
      expect(routed).toMatchObject({ kind: 'retry', skipped: true, skips: skips + 1 });
      waits.push((routed as { dueAt: number }).dueAt - 1_000);
    }
    expect(waits).toEqual([30_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 21_600_000, 21_600_000]);
  });

  test('a record skipped once it has waited the whole retry schedule since its first failure is dead-lettered, CIRCUIT_OPEN', async () => {
    const now = 100 * 3_600_000;
    const { d, breaker } = deps(failed(), { now: () => now });
    breaker.recordFailure();
    breaker.recordFailure();
    expect(await sendCallback(request, after(2, { skips: 7, firstFailureAt: now - SCHEDULE + 1 }), d)).toMatchObject({ kind: 'retry' });
    expect(await sendCallback(request, after(2, { skips: 7, firstFailureAt: now - SCHEDULE }), d)).toEqual({
      kind: 'dead-letter',
      attempts: 2,
      httpStatus: null,
      errorClass: 'CIRCUIT_OPEN',
      reason: "the partner's circuit stayed open for the whole retry schedule (38555 s since the first failure); 2 attempts made",
      latencyMs: null,
      responseExcerpt: null,
      requestHeaders: null,
    });
  });

  test('a failed attempt starts the skips in a row again', async () => {
    expect(await sendCallback(request, after(2, { skips: 5 }), deps(failed()).d)).toMatchObject({
      kind: 'retry',
      tier: 3,
      skipped: false,
      skips: 0,
    });
  });

  test("a quick error answer to a first attempt does not count towards the partner's circuit; to a retry, or a timeout, it does", async () => {
    const quickFirst = deps(failed());
    for (let i = 0; i < 10; i++) await sendCallback(request, after(0), quickFirst.d);
    expect(quickFirst.breaker.state).toBe('closed');
    expect(quickFirst.attempts).toHaveLength(10);

    const retries = deps(failed());
    for (let i = 0; i < 2; i++) await sendCallback(request, after(1), retries.d);
    expect(retries.breaker.state).toBe('open');

    const timeouts = deps(failed({ httpStatus: null, errorClass: 'TIMEOUT', detail: 'TimeoutError', latencyMs: 1_000 }));
    for (let i = 0; i < 2; i++) await sendCallback(request, after(0), timeouts.d);
    expect(timeouts.breaker.state).toBe('open');
  });

  test('an undeliverable record says nothing of the partner: a probe that comes to it neither closes nor re-opens the circuit', async () => {
    let now = 1_000;
    const probing = new CircuitBreaker({ failureThreshold: 1, openMs: 10_000, now: () => now });
    const { d, attempts } = deps(
      { kind: 'undeliverable', errorClass: 'UNKNOWN_ENDPOINT', detail: 'gone' },
      { breakers: { for: () => probing } },
    );
    probing.recordFailure();
    now += 10_000;
    expect(await sendCallback(request, after(0), d)).toMatchObject({ kind: 'dead-letter', errorClass: 'UNKNOWN_ENDPOINT' });
    expect(attempts).toEqual([1]); // it was the probe
    expect(probing.state).toBe('half_open');
    expect(probing.tryAcquire()).toBe(true); // the next record probes at once
  });

  test('when the circuit opened while the record waited for its slot, then it goes back to its tier unattempted', async () => {
    const { d } = deps({ kind: 'circuit-open' });
    expect(await sendCallback(request, after(2), d)).toMatchObject({
      kind: 'retry',
      tier: 1,
      attempts: 2,
      skipped: true,
      errorClass: 'CIRCUIT_OPEN',
    });
  });

  test('when the circuit opens while the record waits for a slot of its partner, then it is not attempted and goes back to its tier', async () => {
    const { d, attempts, breaker } = deps(failed());
    const opening: SendCallbackDeps = {
      ...d,
      limiter: {
        run: (_partnerId, task) => {
          breaker.recordFailure();
          breaker.recordFailure(); // threshold 2: open while the record waited
          return task();
        },
      },
    };
    expect(await sendCallback(request, after(2), opening)).toMatchObject({
      kind: 'retry',
      attempts: 2,
      skipped: true,
      responseExcerpt: null,
      requestHeaders: null,
    });
    expect(attempts).toEqual([]);
  });

  test('an endpoint in ordering mode NONE is never superseded: a newer version does not hold back an older one', async () => {
    const none = { callback_endpoints: [{ endpoint_id: 'ep-1', ordering: 'NONE' }] };
    const { d, attempts } = deps(
      { kind: 'delivered', httpStatus: 200, latencyMs: 2, responseExcerpt: '', requestHeaders: SENT },
      {
        partners: { get: () => none as unknown as ReturnType<SendCallbackDeps['partners']['get']> },
        versions: { isSuperseded: () => Promise.resolve(true) },
      },
    );
    expect(await sendCallback(request, after(0), d)).toMatchObject({ kind: 'delivered' });
    expect(attempts).toEqual([1]);
  });
});
