import type { CallbackRequest, DeliveryOutcome } from '../../src/domain/deliver-callback';
import { sendCallback, type SendCallbackDeps } from '../../src/domain/send-callback';
import { SendsInFlight } from '../../src/domain/sends-in-flight';
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
  const asked: string[] = [];
  const deliveredNow = new Set<string>();
  const breaker = new CircuitBreaker({ failureThreshold: 1, failureRate: 0.01, openMs: 60_000, now: () => 1_000 });
  const d: SendCallbackDeps = {
    partners: { get: () => undefined },
    versions: { isSuperseded: () => Promise.resolve(superseded) },
    delivered: {
      wasDelivered: (id) => {
        asked.push(id);
        return Promise.resolve(deliveredNow.has(id));
      },
      recordDelivered: (id, at) => {
        recorded.push([id, at]);
        deliveredNow.add(id);
        return Promise.resolve();
      },
    },
    sendsInFlight: new SendsInFlight(),
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

  test('the record waiting in its tier sends nothing once a retry now delivered its delivery, and is sent otherwise', async () => {
    const { d, sent } = deps(delivered);
    expect(await sendCallback({ ...real, delivery_id: 'd-2' }, history(1), d, { tier: 1 })).toMatchObject({ kind: 'delivered' });
    await sendCallback(retryNow, history(1), d);
    expect(await sendCallback(real, history(1), d, { tier: 1 })).toEqual({ kind: 'already-delivered', attempts: 1 });
    expect(sent).toEqual([2, 2]);
  });

  test('the tier race: a tier attempt in flight while a retry now delivered, which then failed, sends nothing at its next tier', async () => {
    const { d, sent } = deps(delivered);
    await sendCallback(retryNow, history(1), d);
    // Its failure (later than the retry now's delivery) does not make the delivery undelivered again.
    expect(await sendCallback(real, history(2), d, { tier: 1 })).toEqual({ kind: 'already-delivered', attempts: 2 });
    expect(sent).toEqual([2]);
  });

  test('a second retry now of a delivery already delivered sends nothing (a double click the log let through)', async () => {
    const { d, sent } = deps(delivered);
    expect(await sendCallback(retryNow, history(2), d)).toMatchObject({ kind: 'delivered', attempt: 3 });
    expect(await sendCallback(retryNow, history(2), d)).toEqual({ kind: 'already-delivered', attempts: 2 });
    expect(sent).toEqual([3]);
  });

  test('a delivery its tier record delivered is recorded: a retry now accepted meanwhile sends nothing', async () => {
    const { d, sent, recorded } = deps(delivered);
    expect(await sendCallback(real, history(1), d, { tier: 1 })).toMatchObject({ kind: 'delivered', attempt: 2 });
    expect(recorded).toEqual([['d-1', 1_000]]);
    expect(await sendCallback(retryNow, history(1), d)).toEqual({ kind: 'already-delivered', attempts: 1 });
    expect(sent).toEqual([2]);
  });

  test('only tier records and retries now ask: a first send never does', async () => {
    const { d, asked } = deps(delivered);
    await sendCallback(real, history(0), d);
    expect(asked).toEqual([]);
    await sendCallback(real, history(1), d, { tier: 1 });
    expect(asked).toEqual(['d-1']);
  });

  test('a retry now and its tier record handled at the same moment on one replica: one send, the other finds it delivered', async () => {
    const { d, sent } = deps(delivered);
    const slowly = d.deliver;
    // The partner takes a while to answer: both records are in hand before either has recorded its delivery.
    d.deliver = async (r, n) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return slowly(r, n);
    };
    const kinds = (await Promise.all([sendCallback(real, history(2), d, { tier: 2 }), sendCallback(retryNow, history(2), d)])).map(
      (x) => x.kind,
    );
    expect(kinds).toEqual(['delivered', 'already-delivered']);
    expect(sent).toEqual([3]);
  });

  test('the store unable to say rejects: the record is read again, never sent unjudged', async () => {
    const { d, sent } = deps(delivered);
    d.delivered.wasDelivered = () => Promise.reject(new Error('store away'));
    await expect(sendCallback(real, history(1), d, { tier: 1 })).rejects.toThrow('store away');
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
