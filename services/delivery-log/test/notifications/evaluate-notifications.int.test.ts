/**
 * The notifications' evaluator on a real PostgreSQL server: each transition of a partner's
 * subjects is enqueued once, even with two evaluators (two replicas) judging it at the same moment,
 * never again while the state holds, and not at all while an operator switched them off.
 */
import { randomUUID } from 'node:crypto';
import type { Partner } from '@hookstream/partners';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { notificationOutbox } from '../../src/adapters/store/notification-outbox';
import { operatorNotifications, subscriptionStore } from '../../src/adapters/store/notification-subscriptions';
import { partnerTransactions } from '../../src/adapters/store/partner-scope';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import { notificationObservations } from '../../src/adapters/store/queries/notification-observations';
import { evaluateNotifications } from '../../src/domain/evaluate-notifications';
import { NOTIFICATION_TYPES } from '../../src/domain/notification-events';
import { attemptOf, callbackRequest } from '../support/callback-facts';
import { storesUnderTest } from '../support/stores';
import { acme } from './partner-fixture';

const at = (time: string) => new Date(`2026-11-25T${time}:00Z`);
const FIVE_MINUTES = 5 * 60_000;

for (const [name, server] of storesUnderTest()) {
  describe(`notification transitions on ${name}`, () => {
    let s: DeliveryLogStore;
    let partner: Partner;
    /** Two replicas' evaluators: each its own outbox on the one database. */
    const evaluators = (perHour = 20) =>
      [1, 2].map(() => ({
        transitions: notificationOutbox(s.db, perHour),
        observe: notificationObservations(s.db, FIVE_MINUTES),
        partners: { ready: true, get: (id: string) => (id === partner.partner_id ? partner : undefined) },
        newId: randomUUID,
      }));
    const racing = async (now: Date, perHour?: number) =>
      (await Promise.all(evaluators(perHour).map((deps) => evaluateNotifications(deps, now)))).flat();
    const sent = async () =>
      (await s.db.selectFrom('notifications').select(['type', 'state', 'body']).orderBy('occurred_at').execute()).map((n) => ({
        type: n.type,
        state: n.state,
        data: (JSON.parse(n.body) as { data: Record<string, unknown> }).data,
      }));
    const attempts = (time: string, outcome: string, count: number, endpointId = 'main') =>
      writeFacts(
        s.db,
        Array.from({ length: count }, (_, i) =>
          attemptOf(callbackRequest(randomUUID(), at(time).getTime() - 1000, { endpointId }), at(time).getTime() + i * 1000, { outcome }),
        ),
      );

    beforeEach(async () => {
      s = await server.fresh();
      partner = acme();
      // Subscribed in the partner's own scope, as the partner API does (row security: migration 0018).
      await subscriptionStore(partnerTransactions(s.db, 'acme')).put(
        'acme',
        { url: 'https://acme.example/n', events: [...NOTIFICATION_TYPES] },
        at('11:00'),
      );
    });
    afterEach(() => s?.close());
    afterAll(() => server.stop());

    test('when a failure is older than two failing spans with nothing sent since, then it is no longer judged (only the last two spans of sends are read), and a state judged stays', async () => {
      await attempts('12:00', 'FAILED_ATTEMPT', 1);
      // 11 minutes on, the failure is out of the 10 minutes read: nothing judged, nothing sent.
      expect(await racing(at('12:11'))).toEqual([]);
      // Judged while it was between 5 and 10 minutes old, it stays failing with no news after.
      expect((await racing(at('12:06'))).map((n) => n.type)).toEqual(['endpoint.failing']);
      expect(await racing(at('12:30'))).toEqual([]);
    });

    test('when two evaluators judge an endpoint failing at once, then one endpoint.failing is enqueued, and no other while it stays failing', async () => {
      await attempts('12:00', 'FAILED_ATTEMPT', 3);
      // Failing for 3 minutes only: not yet.
      expect(await racing(at('12:03'))).toEqual([]);

      const enqueued = await racing(at('12:06'));
      await racing(at('12:07'));
      await attempts('12:08', 'FAILED_ATTEMPT', 2);
      await racing(at('12:09'));

      expect(enqueued.map((n) => n.type)).toEqual(['endpoint.failing']);
      expect(await sent()).toEqual([
        {
          type: 'endpoint.failing',
          state: 'pending',
          data: expect.objectContaining({ endpoint_id: 'main', endpoint_name: 'Claims', reason: 'no_success', failed_attempts: 3 }),
        },
      ]);
    });

    test('when a failing endpoint succeeds again, then endpoint.recovered once; a disabled endpoint is never judged', async () => {
      await attempts('12:00', 'FAILED_ATTEMPT', 2);
      await attempts('12:00', 'FAILED_ATTEMPT', 2, 'spare');
      await racing(at('12:06'));
      await attempts('12:10', 'DELIVERED', 1);

      expect((await racing(at('12:11'))).map((n) => n.type)).toEqual(['endpoint.recovered']);
      expect(await racing(at('12:12'))).toEqual([]);
      expect((await sent()).map((n) => [n.type, n.data['endpoint_id']])).toEqual([
        ['endpoint.failing', 'main'],
        ['endpoint.recovered', 'main'],
      ]);
    });

    test('when the partner’s circuit opens, then its endpoint is failing at once (the failing-endpoints list’s judgement)', async () => {
      await attempts('12:00', 'FAILED_ATTEMPT', 1);
      await attempts('12:01', 'SKIPPED_CIRCUIT_OPEN', 1);

      expect((await racing(at('12:02'))).map((n) => n.type)).toEqual(['endpoint.failing']);
      expect((await sent())[0]?.data).toEqual(expect.objectContaining({ reason: 'circuit_open' }));
    });

    test('when dead letters start waiting, and the partner is disabled then enabled, then one notification each', async () => {
      await attempts('12:00', 'DEAD_LETTERED', 2);
      await racing(at('12:01'));
      partner = acme({ status: 'DISABLED' });
      await racing(at('12:02'));
      partner = acme({ status: 'ACTIVE', revision: 2 });
      await racing(at('12:03'));
      await racing(at('12:04'));

      expect((await sent()).map((n) => n.type)).toEqual(['dead_letters.waiting', 'partner.disabled', 'partner.enabled']);
      expect((await sent())[0]?.data).toEqual(expect.objectContaining({ dead_letters_waiting: 2 }));
    });

    test('when two evaluators race over ten transitions of a subject already judged, then ten notifications, not more', async () => {
      for (let i = 1; i <= 10; i++) {
        partner = acme({ status: i % 2 === 1 ? 'DISABLED' : 'ACTIVE', revision: i });
        await racing(new Date(at('12:00').getTime() + i * 1000), 100);
      }
      const types = (await sent()).map((n) => n.type);
      expect(types).toHaveLength(10);
      expect(types.filter((t) => t === 'partner.disabled')).toHaveLength(5);
    });

    test('when an operator switched notifications off, then no transition is enqueued', async () => {
      await operatorNotifications(s.db).setOperatorOff('acme', true, at('11:30'));
      partner = acme({ status: 'DISABLED' });
      await attempts('12:00', 'FAILED_ATTEMPT', 3);

      expect(await racing(at('12:10'))).toEqual([]);
      expect(await sent()).toEqual([]);
    });

    test('when a partner’s transitions pass the hourly bound, then the ones past it are kept as suppressed, not sent', async () => {
      for (const [time, status, revision] of [
        ['12:01', 'DISABLED', 1],
        ['12:02', 'ACTIVE', 2],
        ['12:03', 'DISABLED', 3],
      ] as const) {
        partner = acme({ status, revision });
        await racing(at(time), 2);
      }
      expect((await sent()).map((n) => [n.type, n.state])).toEqual([
        ['partner.disabled', 'pending'],
        ['partner.enabled', 'pending'],
        ['partner.disabled', 'suppressed'],
      ]);
    });

    test('when an operator switches them off after a pass read the subscriptions, then that pass enqueues nothing left pending for good', async () => {
      await attempts('12:00', 'FAILED_ATTEMPT', 3);
      const [deps] = evaluators();
      // The pass read the subscriptions before the switch-off; its transitions run after it.
      const before = await deps!.transitions.judgedSubscriptions();
      await operatorNotifications(s.db).setOperatorOff('acme', true, at('12:05'));
      const late = { ...deps!, transitions: { ...deps!.transitions, judgedSubscriptions: () => Promise.resolve(before) } };

      expect(await evaluateNotifications(late, at('12:06'))).toEqual([]);
      expect(await sent()).toEqual([]);
    });

    test('when two replicas see the partner at different revisions, then the newer status is notified once and never flipped back', async () => {
      const [ahead, behind] = evaluators();
      const seeing = (deps: typeof ahead, seen: Partner) => ({ ...deps!, partners: { ready: true, get: () => seen } });
      const newer = seeing(ahead, acme({ status: 'DISABLED', revision: 2 }));
      const older = seeing(behind, acme({ status: 'ACTIVE', revision: 1 }));

      for (let minute = 1; minute <= 4; minute++) {
        await evaluateNotifications(newer, at(`12:0${minute}`));
        await evaluateNotifications(older, at(`12:0${minute}`));
      }

      expect((await sent()).map((n) => n.type)).toEqual(['partner.disabled']);
    });

    test('when the partner directory has not loaded yet, then nothing is judged', async () => {
      partner = acme({ status: 'DISABLED', revision: 2 });
      const [deps] = evaluators();

      expect(await evaluateNotifications({ ...deps!, partners: { ...deps!.partners, ready: false } }, at('12:01'))).toEqual([]);
      expect(await s.db.selectFrom('notification_states').selectAll().execute()).toEqual([]);
    });
  });
}
