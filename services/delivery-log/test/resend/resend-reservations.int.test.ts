/**
 * The hourly limit of a partner's resends on a real PostgreSQL server: a place per resend of the last hour,
 * refused past the limit with when one frees, given back by a resend that did not happen, and
 * held by concurrent requests (on PostgreSQL, each on its own connection, as replicas' would be);
 * each partner's counted and written in its scope, as the partner API does (partner-scope.ts).
 */
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { partnerTransactions } from '../../src/adapters/store/partner-scope';
import { ResendReservations } from '../../src/adapters/store/resend-reservations';
import { storesUnderTest } from '../support/stores';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const at = (seconds: number) => new Date(NOW + seconds * 1000);

for (const [name, store] of storesUnderTest()) {
  describe(`resend reservations on ${name}`, () => {
    let s: DeliveryLogStore;
    beforeAll(async () => {
      s = await store.fresh();
    });
    afterAll(async () => {
      await s?.close();
      await store.stop();
    });

    test('when a partner has had its resends of the hour, the next is refused until the oldest leaves the hour; a released place is free again', async () => {
      const reservations = new ResendReservations(partnerTransactions(s.db, 'acme'), 3);
      const first = await reservations.reserve('acme', 'd-1', at(0));
      const second = await reservations.reserve('acme', 'd-2', at(10));
      expect(await reservations.reserve('acme', 'd-3', at(20))).toMatchObject({ reserved: true });
      expect([first.reserved, second.reserved]).toEqual([true, true]);

      // The first place frees an hour after it was taken: 3,570 s after the fourth try.
      expect(await reservations.reserve('acme', 'd-4', at(30))).toEqual({ reserved: false, retryAfterSeconds: 3570 });
      // Another partner has its own.
      expect(await new ResendReservations(partnerTransactions(s.db, 'globex'), 3).reserve('globex', 'd-9', at(30))).toMatchObject({
        reserved: true,
      });

      // The second resend did not happen: its place is given back.
      if (!second.reserved) throw new Error('unreachable');
      await reservations.release(second.reservationId);
      expect(await reservations.reserve('acme', 'd-4', at(40))).toMatchObject({ reserved: true });
      // The limiting place now is the first's still: refused until it leaves the hour, then taken.
      expect(await reservations.reserve('acme', 'd-5', at(50))).toEqual({ reserved: false, retryAfterSeconds: 3550 });
      expect(await reservations.reserve('acme', 'd-5', at(3601))).toMatchObject({ reserved: true });
    });

    test('concurrent resends beyond the limit are refused: as many pass as the limit allows', async () => {
      const reservations = new ResendReservations(partnerTransactions(s.db, 'initech'), 4);
      const tries = await Promise.all(Array.from({ length: 10 }, (_, i) => reservations.reserve('initech', `d-${i}`, at(0))));
      expect(tries.filter((t) => t.reserved)).toHaveLength(4);
      expect(tries.filter((t) => !t.reserved)).toEqual(Array(6).fill({ reserved: false, retryAfterSeconds: 3600 }));
      const rows = await s.db.selectFrom('resend_reservations').select('delivery_id').where('partner_id', '=', 'initech').execute();
      expect(rows).toHaveLength(4);
    });
  });
}
