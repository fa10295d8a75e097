/**
 * The partner API's writes under row security on a real PostgreSQL server (migration 0016): in one
 * partner's scope, the places under its limits and a retry now's claims can be written only as that
 * partner's. PostgreSQL itself refuses a row of another partner's, inserted or updated into, and
 * shows the scope none of another's rows to update or delete. The store's own user (the operator
 * API, the pruner, a replica of the version before during a rolling upgrade) still writes any
 * partner's, and the migration may run again.
 */
import { sql } from 'kysely';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { partnerScopedWrites } from '../../src/adapters/store/migrations/0016-partner-scoped-writes';
import { inPartnerScope } from '../../src/adapters/store/partner-scope';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import type { DeliveryLogDb } from '../../src/adapters/store/tables';
import { callbackRequest } from '../support/callback-facts';
import { storesUnderTest } from '../support/stores';

const T0 = new Date('2026-11-25T10:00:00Z');
const PARTNER_WRITTEN = ['resend_reservations', 'retry_now_claims', 'self_service_changes'];
const REFUSED_BY_POLICY = /new row violates row-level security policy/;

const reservation = (id: string, partnerId: string) => ({
  reservation_id: id,
  partner_id: partnerId,
  delivery_id: `d-${partnerId}`,
  reserved_at: T0,
  kind: 'resend',
});
const change = (id: string, partnerId: string) => ({ change_id: id, partner_id: partnerId, kind: 'endpoints', reserved_at: T0 });
const claim = (id: string, deliveryId: string) => ({
  claim_id: id,
  delivery_id: deliveryId,
  attempts_before: 1,
  claimed_at: T0,
  expires_at: T0,
});

describe.each(storesUnderTest())('partner-scoped writes on %s', (_name, stores) => {
  let store: DeliveryLogStore;

  beforeAll(async () => {
    store = await stores.fresh();
    await writeFacts(store.db, [
      { kind: 'delivery', request: callbackRequest('d-acme', T0.getTime(), { partnerId: 'acme' }) },
      { kind: 'delivery', request: callbackRequest('d-globex', T0.getTime(), { partnerId: 'globex' }) },
      { kind: 'delivery', request: callbackRequest('d-globex-2', T0.getTime(), { partnerId: 'globex' }) },
    ]);
    // Globex's own, written as the store's own user.
    await store.db.insertInto('resend_reservations').values(reservation('r-globex', 'globex')).execute();
    await store.db.insertInto('self_service_changes').values(change('c-globex', 'globex')).execute();
    await store.db.insertInto('retry_now_claims').values(claim('k-globex', 'd-globex')).execute();
  });
  afterAll(async () => {
    await store?.close();
    await stores.stop();
  });

  const asAcme = <T>(write: (scoped: DeliveryLogDb) => Promise<T>) => inPartnerScope(store.db, 'acme', write);

  test("when acme's scope inserts a place or a claim of globex's, then PostgreSQL refuses each", async () => {
    await expect(asAcme((db) => db.insertInto('resend_reservations').values(reservation('r-1', 'globex')).execute())).rejects.toThrow(
      REFUSED_BY_POLICY,
    );
    await expect(asAcme((db) => db.insertInto('self_service_changes').values(change('c-1', 'globex')).execute())).rejects.toThrow(
      REFUSED_BY_POLICY,
    );
    await expect(asAcme((db) => db.insertInto('retry_now_claims').values(claim('k-1', 'd-globex')).execute())).rejects.toThrow(
      REFUSED_BY_POLICY,
    );
    // Its own are written.
    await asAcme(async (db) => {
      await db.insertInto('resend_reservations').values(reservation('r-acme', 'acme')).execute();
      await db.insertInto('self_service_changes').values(change('c-acme', 'acme')).execute();
      await db.insertInto('retry_now_claims').values(claim('k-acme', 'd-acme')).execute();
    });
    expect(await store.db.selectFrom('resend_reservations').select('partner_id').orderBy('partner_id').execute()).toEqual([
      { partner_id: 'acme' },
      { partner_id: 'globex' },
    ]);
  });

  test("when acme's scope updates its claim into globex's delivery, then PostgreSQL refuses it; a place is never updated", async () => {
    await expect(
      asAcme((db) => db.updateTable('retry_now_claims').set({ delivery_id: 'd-globex-2' }).where('claim_id', '=', 'k-acme').execute()),
    ).rejects.toThrow(REFUSED_BY_POLICY);
    await expect(
      asAcme((db) => db.updateTable('resend_reservations').set({ partner_id: 'globex' }).where('reservation_id', '=', 'r-acme').execute()),
    ).rejects.toThrow(/permission denied/);
  });

  test("when acme's scope updates, deletes or reads globex's rows, then it finds none, and they stay as they were", async () => {
    const touched = await asAcme(async (db) => [
      await db
        .updateTable('retry_now_claims')
        .set({ expires_at: new Date(0) })
        .where('delivery_id', '=', 'd-globex')
        .executeTakeFirst(),
      await db.deleteFrom('retry_now_claims').where('claim_id', '=', 'k-globex').executeTakeFirst(),
      await db.deleteFrom('resend_reservations').where('reservation_id', '=', 'r-globex').executeTakeFirst(),
      await db.deleteFrom('self_service_changes').where('change_id', '=', 'c-globex').executeTakeFirst(),
    ]);
    expect(touched.map((result) => Number('numUpdatedRows' in result ? result.numUpdatedRows : result.numDeletedRows))).toEqual([
      0, 0, 0, 0,
    ]);
    const seen = await asAcme(async (db) => ({
      reservations: await db.selectFrom('resend_reservations').select('partner_id').execute(),
      changes: await db.selectFrom('self_service_changes').select('partner_id').execute(),
      claims: await db.selectFrom('retry_now_claims').select('delivery_id').execute(),
    }));
    expect(seen).toEqual({
      reservations: [{ partner_id: 'acme' }],
      changes: [{ partner_id: 'acme' }],
      claims: [{ delivery_id: 'd-acme' }],
    });
    const globexClaim = await store.db.selectFrom('retry_now_claims').select('expires_at').where('claim_id', '=', 'k-globex').execute();
    expect(globexClaim).toEqual([{ expires_at: T0 }]);
    expect(
      await store.db.selectFrom('resend_reservations').select('reservation_id').where('partner_id', '=', 'globex').execute(),
    ).toHaveLength(1);
    expect(await store.db.selectFrom('self_service_changes').select('change_id').where('partner_id', '=', 'globex').execute()).toHaveLength(
      1,
    );
  });

  test("when the store's own user writes any partner's places (operator, pruner, a replica of the version before), then no policy stands in its way", async () => {
    await store.db.insertInto('resend_reservations').values(reservation('r-owner', 'initech')).execute();
    await store.db.insertInto('retry_now_claims').values(claim('k-owner', 'd-unknown')).execute();
    const deleted = await store.db.deleteFrom('self_service_changes').where('change_id', 'in', ['c-acme', 'c-globex']).executeTakeFirst();
    expect(Number(deleted.numDeletedRows)).toBe(2);
  });

  test('when migration 0016 runs again (a policy or grant made beforehand), then it changes nothing and fails nothing', async () => {
    const policies = () =>
      sql<{ tablename: string; cmd: string }>`
        select tablename, cmd from pg_policies where policyname = 'partner_writes' order by tablename`.execute(store.db);
    const before = (await policies()).rows;
    await store.db.transaction().execute((trx) => partnerScopedWrites.up(trx));
    expect((await policies()).rows).toEqual(before);
    expect(before).toEqual(PARTNER_WRITTEN.map((tablename) => ({ tablename, cmd: 'ALL' })));
  });
});
