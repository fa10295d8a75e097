/**
 * The deliveries' queries on a real PostgreSQL server, on rows the projection wrote: each filter of the list,
 * and pages that follow each other by cursor (the time and id tuple), ties of time included.
 */
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import type { Fact } from '../../src/entry/kafka/facts';
import { findDelivery, listDeliveries, type DeliveryFilter } from '../../src/adapters/store/queries/delivery-queries';
import { decodeCursor } from '../../src/adapters/store/queries/page';
import { attemptOf, callbackRequest } from '../support/callback-facts';
import { storesUnderTest } from '../support/stores';

const T0 = Date.parse('2026-11-20T08:00:00Z');
const at = (seconds: number) => T0 + seconds * 1000;

// Partner acme's six deliveries (two made at the same time) and one of globex.
const requests = [
  callbackRequest('a1', at(0), { policyNumber: 'P-1' }),
  callbackRequest('a2', at(1), { policyNumber: 'P-2', endpointId: 'backup' }),
  callbackRequest('a3', at(2), { policyNumber: 'P-1' }),
  callbackRequest('a4', at(2), { policyNumber: 'P-3' }),
  callbackRequest('a5', at(3), { policyNumber: 'P-1', endpointId: 'backup' }),
  callbackRequest('a6', at(4), { policyNumber: 'P-2' }),
  callbackRequest('g1', at(2.5), { policyNumber: 'P-1', partnerId: 'globex' }),
  callbackRequest('u1', at(-1), { policyNumber: 'ÄB-İ1', partnerId: 'umlaut' }),
];
const [a1, a2, , a4] = requests;
const facts: Fact[] = [
  ...requests.map((request): Fact => ({ kind: 'delivery', request })),
  attemptOf(a1!, at(10), { attempt: 1, outcome: 'FAILED_ATTEMPT', httpStatus: 503 }),
  attemptOf(a1!, at(20), { attempt: 2, outcome: 'DELIVERED', httpStatus: 200 }),
  attemptOf(a2!, at(10), { outcome: 'FAILED_ATTEMPT', httpStatus: 500 }),
  attemptOf(a4!, at(10), { outcome: 'DELIVERED', httpStatus: 200 }),
];

for (const [name, store] of storesUnderTest()) {
  describe(`the deliveries' queries on ${name}`, () => {
    let s: DeliveryLogStore;
    beforeAll(async () => {
      s = await store.fresh();
      await writeFacts(s.db, facts);
    });
    afterAll(async () => {
      await s?.close();
      await store.stop();
    });

    const ids = async (filter: Omit<DeliveryFilter, 'limit'>) =>
      (await listDeliveries(s.db, { limit: 50, ...filter })).items.map((d) => d.delivery_id);

    test('each filter keeps only its deliveries, newest first (ties of time by id, descending)', async () => {
      expect(await ids({ partnerId: 'acme' })).toEqual(['a6', 'a5', 'a4', 'a3', 'a2', 'a1']);
      expect(await ids({ partnerId: 'acme', state: 'delivered' })).toEqual(['a4', 'a1']);
      expect(await ids({ partnerId: 'acme', state: 'failing' })).toEqual(['a2']);
      expect(await ids({ partnerId: 'acme', policyNumber: 'P-1' })).toEqual(['a5', 'a3', 'a1']);
      // A policy number is a prefix in any case; an exact one finds itself whatever its letters (both sides lowered by PostgreSQL).
      expect(await ids({ partnerId: 'acme', policyNumber: 'p-' })).toEqual(['a6', 'a5', 'a4', 'a3', 'a2', 'a1']);
      expect(await ids({ partnerId: 'umlaut', policyNumber: 'ÄB-İ1' })).toEqual(['u1']);
      expect(await ids({ partnerId: 'umlaut', policyNumber: 'ÄB-' })).toEqual(['u1']);
      expect(await ids({ partnerId: 'acme', endpointId: 'backup' })).toEqual(['a5', 'a2']);
      expect(await ids({ partnerId: 'acme', policyNumber: 'P-1', endpointId: 'main' })).toEqual(['a3', 'a1']);
      // From is inclusive, to exclusive.
      expect(await ids({ partnerId: 'acme', from: new Date(at(2)) })).toEqual(['a6', 'a5', 'a4', 'a3']);
      expect(await ids({ partnerId: 'acme', to: new Date(at(2)) })).toEqual(['a2', 'a1']);
      expect(await ids({ partnerId: 'acme', from: new Date(at(1)), to: new Date(at(3)) })).toEqual(['a4', 'a3', 'a2']);
      // An operator's, across partners.
      expect(await ids({ policyNumber: 'P-1' })).toEqual(['a5', 'g1', 'a3', 'a1']);
      expect(await ids({ partnerId: 'globex' })).toEqual(['g1']);
    });

    test('pages follow each other by cursor without repeating or skipping, across deliveries made at the same time', async () => {
      const walk = async (filter: Omit<DeliveryFilter, 'limit' | 'cursor'>, limit: number) => {
        const pages: string[][] = [];
        let cursor: string | null = null;
        do {
          const page = await listDeliveries(s.db, { ...filter, limit, ...(cursor ? { cursor: decodeCursor(cursor)! } : {}) });
          pages.push(page.items.map((d) => d.delivery_id));
          cursor = page.nextCursor;
        } while (cursor);
        return pages;
      };
      expect(await walk({}, 2)).toEqual([
        ['a6', 'a5'],
        ['g1', 'a4'],
        ['a3', 'a2'],
        ['a1', 'u1'],
      ]);
      // a4 and a3 were made at the same time: a page ends between them.
      expect(await walk({ partnerId: 'acme', endpointId: 'main' }, 1)).toEqual([['a6'], ['a4'], ['a3'], ['a1']]);
      expect(await walk({ partnerId: 'acme', state: 'delivered' }, 2)).toEqual([['a4', 'a1']]);
    });

    test("one delivery has its attempts in order and its summary; another partner's is not found", async () => {
      const delivery = await findDelivery(s.db, 'a1', 'acme');
      expect(delivery).toMatchObject({ state: 'delivered', attempt_count: 2, last_http_status: 200, policy_number: 'P-1' });
      expect(delivery?.attempts.map((a) => [a.attempt, a.outcome, a.http_status])).toEqual([
        [1, 'FAILED_ATTEMPT', 503],
        [2, 'DELIVERED', 200],
      ]);
      expect(await findDelivery(s.db, 'a1', 'globex')).toBeUndefined();
      expect(await findDelivery(s.db, 'g1')).toMatchObject({ partner_id: 'globex', state: 'pending' });
    });
  });
}
