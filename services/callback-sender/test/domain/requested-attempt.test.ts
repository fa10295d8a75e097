import type { CallbackRequest, DeliveryOutcome } from '../../src/domain/deliver-callback';
import { sendCallback, type SendCallbackDeps } from '../../src/domain/send-callback';
import { CircuitBreaker } from '../../src/domain/circuit-breaker';

const real: CallbackRequest = {
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
const retryNow: CallbackRequest = { ...real, trigger: 'RETRY_NOW' };
const testEvent: CallbackRequest = { ...real, delivery_id: 'test_1', policy_number: 'TEST-1', trigger: 'TEST' };
const DELAYS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];
const SENT = { 'content-type': 'application/json' };
const delivered: DeliveryOutcome = { kind: 'delivered', httpStatus: 200, latencyMs: 2, responseExcerpt: 'ok', requestHeaders: SENT };
const failed: DeliveryOutcome = {
  kind: 'failed',
  httpStatus: 503,
  errorClass: 'HTTP_STATUS',
  detail: 'HTTP 503',
  latencyMs: 3,
  responseExcerpt: 'busy',
  requestHeaders: SENT,
};

function deps(outcome: DeliveryOutcome, superseded = false) {
  const sent: number[] = [];
  const recorded: Array<[string, number]> = [];
  const asked: Array<[string, number]> = [];
  const deliveredNow = new Map<string, number>();
  const breaker = new CircuitBreaker({ failureThreshold: 1, failureRate: 0.01, openMs: 60_000, now: () => 1_000 });
  const d: SendCallbackDeps = {
    partners: { get: () => undefined },
    versions: { isSuperseded: () => Promise.resolve(superseded) },
    retriesNow: {
      deliveredSince: (id, since) => {
        asked.push([id, since]);
        return Promise.resolve((deliveredNow.get(id) ?? -Infinity) > since);
      },
      recordDelivered: (id, at) => {
        recorded.push([id, at]);
        deliveredNow.set(id, at);
        return Promise.resolve();
      },
    },
    breakers: { for: () => breaker },
    limiter: { run: (_partnerId, task) => task() },
    deliver: (_r, n) => {
      sent.push(n);
      return Promise.resolve(outcome);
    },
    retryDelaysMs: DELAYS,
    maxRetryAfterMs: 3_600_000,
    now: () => 1_000,
  };
  return { d, sent, recorded, asked, breaker };
}

const history = (attempts: number) => ({ attempts, skips: 0, firstFailureAt: attempts > 0 ? 500 : null });

describe('a retry now', () => {
  test('delivered: one attempt, numbered after those made, recorded as delivered now', async () => {
    const { d, sent, recorded } = deps(delivered);
    expect(await sendCallback(retryNow, history(2), d)).toMatchObject({ kind: 'delivered', attempt: 3, httpStatus: 200 });
    expect(sent).toEqual([3]);
    expect(recorded).toEqual([['d-1', 1_000]]);
  });

  test('failed: its outcome only, no tier and no dead letter, even after the last tier', async () => {
    const { d, recorded } = deps(failed);
    expect(await sendCallback(retryNow, history(9), d)).toEqual({
      kind: 'attempted',
      attempt: 10,
      httpStatus: 503,
      errorClass: 'HTTP_STATUS',
      latencyMs: 3,
      responseExcerpt: 'busy',
      requestHeaders: SENT,
    });
    expect(recorded).toEqual([]);
  });

  test('superseded by a newer status of the policy: not sent', async () => {
    const { d, sent } = deps(delivered, true);
    expect(await sendCallback(retryNow, history(1), d)).toEqual({ kind: 'superseded', attempts: 1 });
    expect(sent).toEqual([]);
  });

  test("goes while the partner's circuit is open, as its probe: delivered closes it, failed keeps it open", async () => {
    const ok = deps(delivered);
    ok.breaker.recordFailure();
    expect(ok.breaker.state).toBe('open');
    expect(await sendCallback(retryNow, history(1), ok.d)).toMatchObject({ kind: 'delivered' });
    expect(ok.breaker.state).toBe('closed');

    const bad = deps(failed);
    bad.breaker.recordFailure();
    expect(await sendCallback(retryNow, history(1), bad.d)).toMatchObject({ kind: 'attempted' });
    expect(bad.breaker.state).toBe('open');
  });

  test('the record waiting in its tier sends nothing once a retry now was delivered after it last waited, and is sent otherwise', async () => {
    const { d, sent } = deps(delivered);
    await sendCallback(retryNow, history(1), d);
    expect(await sendCallback(real, history(1), d, { waitingSince: 900 })).toEqual({ kind: 'already-delivered', attempts: 1 });
    expect(sent).toEqual([2]);
    // A record that failed after the retry now (the delivery sent again since) is sent as usual.
    expect(await sendCallback(real, history(1), d, { waitingSince: 1_500 })).toMatchObject({ kind: 'delivered' });
    expect(sent).toEqual([2, 2]);
  });

  test('only tier records ask: a first send never does', async () => {
    const { d, asked } = deps(delivered);
    await sendCallback(real, history(0), d);
    expect(asked).toEqual([]);
    await sendCallback(real, history(1), d, { waitingSince: 700 });
    expect(asked).toEqual([['d-1', 700]]);
  });

  test('the store unable to say rejects: the record is read again, never sent unjudged', async () => {
    const { d, sent } = deps(delivered);
    d.retriesNow.deliveredSince = () => Promise.reject(new Error('store away'));
    await expect(sendCallback(real, history(1), d, { waitingSince: 700 })).rejects.toThrow('store away');
    expect(sent).toEqual([]);
  });
});

describe('a test event', () => {
  test('is sent without the latest-wins check, whatever the circuit, which it leaves as it was', async () => {
    const { d, sent, breaker, recorded } = deps(failed, true);
    breaker.recordFailure();
    expect(await sendCallback(testEvent, history(0), d)).toMatchObject({ kind: 'attempted', attempt: 1, httpStatus: 503 });
    expect(sent).toEqual([1]);
    expect(breaker.state).toBe('open');
    expect(recorded).toEqual([]);

    const ok = deps(delivered);
    expect(await sendCallback(testEvent, history(0), ok.d)).toMatchObject({ kind: 'delivered', attempt: 1 });
    expect(ok.recorded).toEqual([]);
    expect(ok.breaker.state).toBe('closed');
  });
});
