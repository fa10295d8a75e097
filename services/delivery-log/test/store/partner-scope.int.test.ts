/**
 * The partner API's second guard on a real PostgreSQL server: a query run in a partner's scope reads only that
 * partner's rows even without a partner filter, none with no partner set, and writes nothing; the
 * store outside the scope (projection, operator API) still reads every partner's.
 */
import { sql } from 'kysely';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import { listDeliveries } from '../../src/adapters/store/queries/delivery-queries';
import { listRejectedWebhooks } from '../../src/adapters/store/queries/rejected-webhook-queries';
import { PARTNER_READER_ROLE, inPartnerScope } from '../../src/adapters/store/partner-scope';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import type { Fact } from '../../src/entry/kafka/facts';
import { attemptOf, callbackRequest } from '../support/callback-facts';
import { storesUnderTest } from '../support/stores';

const T0 = Date.parse('2026-11-25T10:00:00Z');

function factsOf(partnerId: string, offset: number): Fact[] {
  const request = callbackRequest(`d-${partnerId}`, T0, { partnerId });
  const rejection = {
    rejection_id: `r-${partnerId}`,
    partner_id: partnerId,
    received_at: T0,
    http_status: 400,
    error_code: 'INVALID_PAYLOAD',
    message: 'refused',
    fields: [],
    request_id: null,
    transaction_number: null,
    payload_fingerprint: null,
    ingress_instance: null,
  };
  return [
    { kind: 'delivery', request },
    attemptOf(request, T0 + 1000, { outcome: 'DELIVERED', httpStatus: 200 }),
    { kind: 'rejected-webhook', partition: 0, offset: String(offset), rejection },
  ];
}

describe.each(storesUnderTest())('partner scope on %s', (_name, stores) => {
  let store: DeliveryLogStore;

  beforeAll(async () => {
    store = await stores.fresh();
    await writeFacts(store.db, [...factsOf('acme', 1), ...factsOf('globex', 2)]);
  });
  afterAll(async () => {
    await store?.close();
    await stores.stop();
  });

  test("when a query in acme's scope has no partner filter, then it reads only acme's rows", async () => {
    const page = await inPartnerScope(store.db, 'acme', (db) => listDeliveries(db, { limit: 50 }));
    expect(page.items.map((d) => d.partner_id)).toEqual(['acme']);
    const rejected = await inPartnerScope(store.db, 'acme', (db) => listRejectedWebhooks(db, { limit: 50 }));
    expect(rejected.items.map((r) => r.partner_id)).toEqual(['acme']);
    const attempts = await inPartnerScope(store.db, 'acme', (db) => db.selectFrom('delivery_attempts').select('delivery_id').execute());
    expect(attempts).toEqual([{ delivery_id: 'd-acme' }]);
  });

  test('when no partner is set in the scope, then a query reads no row', async () => {
    const rows = await store.db.transaction().execute(async (trx) => {
      await sql`set local role ${sql.id(PARTNER_READER_ROLE)}`.execute(trx);
      return trx.selectFrom('deliveries').select('delivery_id').execute();
    });
    expect(rows).toEqual([]);
  });

  test('when a query in the scope writes or reads a table no partner owns, then it is refused', async () => {
    const write = inPartnerScope(store.db, 'acme', (db) =>
      db.updateTable('deliveries').set({ state: 'delivered' }).where('partner_id', '=', 'globex').execute(),
    );
    await expect(write).rejects.toThrow(/permission denied/);
    await expect(inPartnerScope(store.db, 'acme', (db) => db.selectFrom('audit_log').selectAll().execute())).rejects.toThrow(
      /permission denied/,
    );
  });

  test('when the scope has ended, then the store reads every partner again (the projection and the operator API)', async () => {
    await inPartnerScope(store.db, 'acme', (db) => listDeliveries(db, { limit: 50 }));
    const all = await store.db.selectFrom('deliveries').select('partner_id').orderBy('partner_id').execute();
    expect(all.map((d) => d.partner_id)).toEqual(['acme', 'globex']);
    expect((await sql<{ user: string }>`select current_user as user`.execute(store.db)).rows[0]!.user).not.toBe(PARTNER_READER_ROLE);
  });
});
