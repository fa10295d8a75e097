/**
 * What the projection makes of a retry now and a test event, on a real PostgreSQL server: a retry
 * now's request changes nothing of its delivery (its state and attempts come from the outcomes); a
 * failing delivery keeps the next attempt its tier gave, through a failed retry now; once a retry now
 * delivered it, the tier's ALREADY_DELIVERED is in its attempts and leaves it delivered, in any order;
 * a test event's delivery is marked as one.
 */
import type { CallbackRequestValue } from '@hookstream/contract';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
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
  created_at: T0,
};
let offset = 0;
const attempt = (
  n: number,
  outcome: string,
  at: number,
  more: { trigger?: string; next?: number; status?: number | null; tier?: number; of?: CallbackRequestValue } = {},
): Fact => ({
  kind: 'attempt',
  partition: 1,
  offset: String(offset++),
  outcome: {
    ...(more.of ?? request),
    attempt: n,
    outcome,
    http_status: more.status ?? null,
    error_class: outcome === 'FAILED_ATTEMPT' ? 'HTTP_STATUS' : null,
    latency_ms: more.status ? 10 : null,
    recorded_at: at,
    tier: more.tier ?? 0,
    response_excerpt: null,
    request_headers_json: null,
    trigger: more.trigger ?? null,
    next_attempt_at: more.next ?? null,
  },
});
const failedFirst = attempt(1, 'FAILED_ATTEMPT', T0 + 1000, { status: 503, next: T0 + 31_000 });
// The log's own row sent again with the trigger; a later created_at would show should it be written over.
const retryRequest: Fact = { kind: 'delivery', request: { ...request, created_at: T0 + 999_000, trigger: 'RETRY_NOW' } };

for (const [name, store] of storesUnderTest()) {
  describe(`retry now and test events in the projection on ${name}`, () => {
    const open: DeliveryLogStore[] = [];
    const fresh = async () => {
      const s = await store.fresh();
      open.push(s);
      return s.db;
    };
    afterAll(async () => {
      await Promise.all(open.map((s) => s.close()));
      await store.stop();
    });
    const row = (db: DeliveryLogStore['db']) =>
      db
        .selectFrom('deliveries')
        .select(['state', 'attempt_count', 'created_at', 'next_attempt_at', 'test', 'last_http_status'])
        .where('delivery_id', '=', 'd-1')
        .executeTakeFirstOrThrow();

    test('a failed retry now leaves the delivery failing with its next attempt as its tier gave it', async () => {
      const db = await fresh();
      await writeFacts(db, [{ kind: 'delivery', request }, failedFirst]);
      expect(await row(db)).toMatchObject({ state: 'failing', next_attempt_at: new Date(T0 + 31_000) });
      await writeFacts(db, [retryRequest]);
      expect(await row(db)).toMatchObject({ state: 'failing', attempt_count: 1, created_at: new Date(T0) });
      await writeFacts(db, [attempt(2, 'FAILED_ATTEMPT', T0 + 5000, { status: 502, trigger: 'RETRY_NOW' })]);
      expect(await row(db)).toMatchObject({
        state: 'failing',
        attempt_count: 2,
        last_http_status: 502,
        next_attempt_at: new Date(T0 + 31_000),
      });
    });

    test.each([
      ['in order', false],
      ['the ALREADY_DELIVERED read first', true],
    ])(
      'delivered by a retry now, the tier record that came due after is shown and the delivery stays delivered (%s)',
      async (_order, reversed) => {
        const db = await fresh();
        await writeFacts(db, [{ kind: 'delivery', request }, failedFirst, retryRequest]);
        const delivered = attempt(2, 'DELIVERED', T0 + 5000, { status: 200, trigger: 'RETRY_NOW' });
        const already = attempt(1, 'ALREADY_DELIVERED', T0 + 31_500, { tier: 1 });
        for (const batch of reversed ? [[already], [delivered]] : [[delivered], [already]]) await writeFacts(db, batch);
        expect(await row(db)).toMatchObject({ state: 'delivered', attempt_count: 2, next_attempt_at: null, last_http_status: 200 });
        const outcomes = await db.selectFrom('delivery_attempts').select(['outcome', 'trigger']).orderBy('recorded_at').execute();
        expect(outcomes).toEqual([
          { outcome: 'FAILED_ATTEMPT', trigger: null },
          { outcome: 'DELIVERED', trigger: 'RETRY_NOW' },
          { outcome: 'ALREADY_DELIVERED', trigger: null },
        ]);
      },
    );

    test('delivered by a retry now while a tier attempt was in flight, which failed after it: the delivery stays delivered, nothing next', async () => {
      const db = await fresh();
      await writeFacts(db, [{ kind: 'delivery', request }, failedFirst, retryRequest]);
      await writeFacts(db, [attempt(2, 'DELIVERED', T0 + 31_000, { status: 200, trigger: 'RETRY_NOW' })]);
      // The tier's attempt 2, sent before the retry now was delivered, failed a moment after it.
      await writeFacts(db, [attempt(2, 'FAILED_ATTEMPT', T0 + 31_200, { status: 503, tier: 1, next: T0 + 151_200 })]);
      expect(await row(db)).toMatchObject({ state: 'delivered', next_attempt_at: null });
    });

    test("a test event's delivery is marked as one, from its request or from its attempt read first", async () => {
      const db = await fresh();
      const test: CallbackRequestValue = { ...request, delivery_id: 'test_1', policy_number: 'TEST-1', trigger: 'TEST' };
      const other: CallbackRequestValue = { ...request, delivery_id: 'test_2', policy_number: 'TEST-2', trigger: 'TEST' };
      await writeFacts(db, [
        { kind: 'delivery', request: test },
        attempt(1, 'DELIVERED', T0 + 100, { of: other, status: 200, trigger: 'TEST' }),
      ]);
      const rows = await db.selectFrom('deliveries').select(['delivery_id', 'test', 'state']).orderBy('delivery_id').execute();
      expect(rows).toEqual([
        { delivery_id: 'test_1', test: true, state: 'pending' },
        { delivery_id: 'test_2', test: true, state: 'delivered' },
      ]);
    });
  });
}
