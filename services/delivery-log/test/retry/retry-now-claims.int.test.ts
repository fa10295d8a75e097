/**
 * One retry now in flight per delivery (adapters/store/retry-now-claims.ts) on a real PostgreSQL
 * server: of twenty claims at once one is taken; a claim holds until the log has the retry's own
 * outcome (an attempt of trigger RETRY_NOW numbered after the attempts it was claimed with, not an
 * earlier retry now's nor a tier's) or until it expires; a claim given back frees the delivery, and
 * never a later claim. The claims are taken in the partner's scope, as the partner API takes them
 * (partner-scope.ts: row security).
 */
import type { CallbackRequestValue } from '@hookstream/contract';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { partnerTransactions } from '../../src/adapters/store/partner-scope';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import { RetryNowClaims } from '../../src/adapters/store/retry-now-claims';
import type { Fact } from '../../src/entry/kafka/facts';
import { storesUnderTest } from '../support/stores';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const at = (ms: number) => new Date(T0 + ms);
const request: CallbackRequestValue = {
  delivery_id: 'd-1',
  event_id: 'e-1',
  partner_id: 'acme',
  endpoint_id: 'main',
  policy_number: 'P-1',
  policy_version: 3,
  policy_status: 'POLICY_ACTIVE',
  body: '{"policy_number":"P-1"}',
  created_at: T0,
};
let offset = 0;
const failedAttempt = (n: number, trigger: string | null): Fact => ({
  kind: 'attempt',
  partition: 0,
  offset: String(offset++),
  outcome: {
    ...request,
    attempt: n,
    outcome: 'FAILED_ATTEMPT',
    http_status: 503,
    error_class: 'HTTP_STATUS',
    latency_ms: 5,
    recorded_at: T0 + n * 1000,
    tier: trigger ? 0 : n - 1,
    response_excerpt: null,
    request_headers_json: null,
    trigger,
    next_attempt_at: null,
  },
});

for (const [name, store] of storesUnderTest()) {
  describe(`retry-now claims on ${name}`, () => {
    let s: DeliveryLogStore;
    let claims: RetryNowClaims;
    beforeEach(async () => {
      s = await store.fresh();
      claims = new RetryNowClaims(partnerTransactions(s.db, 'acme'));
      await writeFacts(s.db, [
        { kind: 'delivery', request },
        { kind: 'delivery', request: { ...request, delivery_id: 'd-2' } },
        failedAttempt(1, null),
        failedAttempt(2, 'RETRY_NOW'),
      ]);
    });
    afterEach(() => s.close());
    afterAll(() => store.stop());

    test('of twenty claims of one delivery at once, one is taken; the others are told which holds and until when', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => claims.claim('d-1', 2, at(10_000), at(50_000))));
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
      for (const r of results.filter((x) => !x.claimed))
        expect(r).toEqual({ claimed: false, claimedAt: at(10_000), expiresAt: at(50_000) });
      // Another delivery's claim is its own.
      expect(await claims.claim('d-2', 0, at(10_000), at(50_000))).toMatchObject({ claimed: true });
    });

    test("a claim holds until the retry's own outcome is in the log: not an earlier retry now's, nor a tier's", async () => {
      expect(await claims.claim('d-1', 2, at(10_000), at(50_000))).toMatchObject({ claimed: true });
      // A tier attempt numbered after it (trigger null): the retry now is still on its way.
      await writeFacts(s.db, [failedAttempt(3, null)]);
      expect(await claims.claim('d-1', 3, at(11_000), at(51_000))).toMatchObject({ claimed: false });
      // Its own outcome (RETRY_NOW, numbered after the 2 attempts it was claimed with): the next press is accepted.
      await writeFacts(s.db, [failedAttempt(3, 'RETRY_NOW')]);
      expect(await claims.claim('d-1', 3, at(12_000), at(52_000))).toMatchObject({ claimed: true });
      // That retry's claim (3 attempts before it) is not ended by the outcome it was claimed after.
      expect(await claims.claim('d-1', 3, at(13_000), at(53_000))).toMatchObject({ claimed: false, claimedAt: at(12_000) });
    });

    test('a claim expires (a retry lost on its way blocks no one for ever); one given back frees its delivery, never a later claim', async () => {
      const first = await claims.claim('d-1', 2, at(10_000), at(50_000));
      expect(await claims.claim('d-1', 2, at(49_999), at(89_999))).toMatchObject({ claimed: false });
      const second = await claims.claim('d-1', 2, at(50_000), at(90_000));
      expect(second).toMatchObject({ claimed: true });
      if (!first.claimed || !second.claimed) throw new Error('unreachable');
      await claims.release(first.claimId);
      expect(await claims.claim('d-1', 2, at(60_000), at(100_000))).toMatchObject({ claimed: false, claimedAt: at(50_000) });
      await claims.release(second.claimId);
      expect(await claims.claim('d-1', 2, at(61_000), at(101_000))).toMatchObject({ claimed: true });
    });
  });
}
