/**
 * The notifications' upkeep on a real PostgreSQL server: settled notifications go with the log's
 * retention while one still to send stays; and while the server is away the loop's passes fail at
 * once and wait longer each time (twice as long, up to a minute), so nothing spins on it.
 */
import { createLogger } from '@hookstream/runtime';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { notificationOutbox } from '../../src/adapters/store/notification-outbox';
import { Pruner } from '../../src/adapters/store/pruner';
import { notificationObservations } from '../../src/adapters/store/queries/notification-observations';
import { evaluateNotifications } from '../../src/domain/evaluate-notifications';
import { NotificationLoop } from '../../src/entry/timers/notification-loop';
import { storesUnderTest } from '../support/stores';
import { acme } from './partner-fixture';

const DAY_MS = 24 * 3_600_000;
const NOW = Date.parse('2026-11-25T12:00:00Z');

for (const [name, server] of storesUnderTest()) {
  describe(`notification upkeep on ${name}`, () => {
    let s: DeliveryLogStore;
    beforeAll(async () => {
      s = await server.fresh();
    });
    afterAll(async () => {
      await s?.close();
      await server.stop();
    });

    test('when notifications are older than the retention, then the settled ones are pruned, one still to send is kept, and one with nowhere left to go is pruned', async () => {
      const old = new Date(NOW - 31 * DAY_MS);
      const row = (id: string, state: 'pending' | 'delivered' | 'given_up', occurredAt: Date, partnerId = 'acme') => ({
        notification_id: id,
        partner_id: partnerId,
        type: 'partner.disabled',
        body: '{}',
        occurred_at: occurredAt,
        state,
        next_attempt_at: occurredAt,
      });
      await s.db
        .insertInto('notifications')
        .values([
          row('old-delivered', 'delivered', old),
          row('old-given-up', 'given_up', old),
          row('old-pending', 'pending', old),
          row('new', 'delivered', new Date(NOW)),
          // Its partner unsubscribed (a tombstone) and the partner 'gone' never had one: neither is ever sent.
          row('old-pending-unsubscribed', 'pending', old, 'beta'),
          row('old-pending-gone', 'pending', old, 'gone'),
        ])
        .execute();
      await s.db
        .insertInto('notification_subscriptions')
        .values([
          { partner_id: 'acme', url: 'https://acme.example/n', events: [], created_at: old, updated_at: old },
          { partner_id: 'beta', url: null, events: [], created_at: old, updated_at: old },
        ])
        .execute();
      const pruner = new Pruner({
        db: s.db,
        logger: createLogger({ service: 'test', level: 'silent' }),
        retentionDays: 30,
        intervalMs: 60_000,
        now: () => NOW,
      });

      expect((await pruner.prune()).notifications).toBe(4);
      const left = await s.db.selectFrom('notifications').select('notification_id').orderBy('notification_id').execute();
      expect(left.map((r) => r.notification_id)).toEqual(['new', 'old-pending']);
    });

    test('when PostgreSQL is away, then each pass fails at once and the next waits twice as long, up to a minute', async () => {
      const outbox = notificationOutbox(s.db, 20);
      const loop = new NotificationLoop({
        evaluate: () =>
          evaluateNotifications(
            {
              transitions: outbox,
              observe: notificationObservations(s.db, 60_000),
              partners: { ready: true, get: () => acme() },
              newId: () => 'id',
            },
            new Date(),
          ),
        // The send reaches the store too: within the interval a pass only sends (notification-loop.ts).
        send: async () => ({ claimed: (await outbox.claimDue(new Date(), 20, 60_000)).length, batch: 20 }),
        logger: createLogger({ service: 'test', level: 'silent' }),
        intervalMs: 5_000,
      });
      expect(await loop.pass()).toBe(5_000);

      await server.stop();
      const waits: number[] = [];
      const started = Date.now();
      for (let i = 0; i < 5; i++) waits.push(await loop.pass());

      expect(waits).toEqual([10_000, 20_000, 40_000, 60_000, 60_000]);
      // Failing fast (a refused connection), not hanging on the server that is gone.
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });
}
