/**
 * A delivery's timeline as the store answers it, on a real PostgreSQL server: the publish time its
 * request's record carried and the retries now asked for it are projected (migration
 * 0019-delivery-timeline) and read back in the partner's scope (row security), as the partner
 * API reads them; another partner reads neither.
 */
import type { CallbackRequestValue } from '@hookstream/contract';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import { findDelivery } from '../../src/adapters/store/queries/delivery-queries';
import { inPartnerScope } from '../../src/adapters/store/partner-scope';
import type { Fact } from '../../src/entry/kafka/facts';
import { storesUnderTest } from '../support/stores';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const request: CallbackRequestValue = {
  delivery_id: 'd-1',
  event_id: 'e-1',
  partner_id: 'acme',
  endpoint_id: 'main',
  policy_number: 'P-1',
  policy_version: 3,
  policy_status: 'POLICY_ACTIVE',
  body: '{"policy_number":"P-1"}',
  created_at: T0 + 50,
};
let offset = 0;
const attempt = (n: number, outcome: string, at: number, more: { trigger?: string; next?: number; tier?: number } = {}): Fact => ({
  kind: 'attempt',
  partition: 0,
  offset: String(offset++),
  outcome: {
    ...request,
    attempt: n,
    outcome,
    http_status: outcome === 'ALREADY_DELIVERED' ? null : outcome === 'DELIVERED' ? 200 : 503,
    error_class: outcome === 'FAILED_ATTEMPT' ? 'HTTP_STATUS' : null,
    latency_ms: outcome === 'ALREADY_DELIVERED' ? null : 10,
    recorded_at: at,
    tier: more.tier ?? 0,
    response_excerpt: null,
    request_headers_json: null,
    trigger: more.trigger ?? null,
    next_attempt_at: more.next ?? null,
  },
});
// A retry now's request is the delivery's own again, created_at and all: when it was asked is its record's timestamp.
const retryNow = (at: number): Fact => ({ kind: 'delivery', request: { ...request, trigger: 'RETRY_NOW' }, writtenAt: at });

for (const [name, store] of storesUnderTest()) {
  describe(`a delivery's timeline from the store on ${name}`, () => {
    let log: DeliveryLogStore;
    beforeAll(async () => {
      log = await store.fresh();
    });
    afterAll(async () => {
      await log?.close();
      await store.stop();
    });

    test('when a failing delivery was delivered by a retry now, then its partner reads the publish, the retry now asked and the tier’s wait in order', async () => {
      await writeFacts(log.db, [
        { kind: 'delivery', request, publishedAt: T0 },
        attempt(1, 'FAILED_ATTEMPT', T0 + 1_000, { next: T0 + 31_000 }),
      ]);
      // The retry now's request read twice (a batch read again): asked once.
      await writeFacts(log.db, [retryNow(T0 + 4_000), retryNow(T0 + 4_000)]);
      await writeFacts(log.db, [retryNow(T0 + 4_000), attempt(2, 'DELIVERED', T0 + 5_000, { trigger: 'RETRY_NOW' })]);
      // A replay's record (re-queued without the header) leaves the publish time as it was.
      await writeFacts(log.db, [{ kind: 'delivery', request, publishedAt: null }]);
      await writeFacts(log.db, [attempt(3, 'ALREADY_DELIVERED', T0 + 31_500, { tier: 1 })]);

      const detail = await inPartnerScope(log.db, 'acme', (scoped) => findDelivery(scoped, 'd-1', 'acme'));

      expect(detail?.timeline.map((s) => [s.name, s.at.getTime() - T0, s.ms])).toEqual([
        ['published', 0, null],
        ['fanned_out', 50, 50],
        ['attempt_sent', 990, 940],
        ['attempt_answered', 1_000, 10],
        ['retried_now', 4_000, 3_000],
        ['attempt_sent', 4_990, 990],
        ['delivered', 5_000, 10],
        ['waited_in_tier', 31_000, 26_000],
        ['already_delivered', 31_500, 500],
      ]);
      expect(detail?.time_to_deliver_ms).toBe(5_000);
    });

    test('when another partner asks, then it reads neither the delivery nor its retries now', async () => {
      const other = await inPartnerScope(log.db, 'other', async (scoped) => ({
        delivery: await findDelivery(scoped, 'd-1', 'other'),
        asked: await scoped.selectFrom('retry_now_requests').selectAll().execute(),
      }));

      expect(other).toEqual({ delivery: undefined, asked: [] });
      expect(await log.db.selectFrom('retry_now_requests').select('partner_id').execute()).toEqual([{ partner_id: 'acme' }]);
    });
  });
}
