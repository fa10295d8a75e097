/**
 * A partner's subscription on a real PostgreSQL server, in its own scope (row security): its URL
 * judged as a callback endpoint's (the SSRF guard with the deployment's allow list, https only),
 * refused while self-service is off or when nothing can sign its notifications, and audited.
 */
import { hasErrorCode, ErrorCodes } from '@hookstream/errors';
import type { AuditedChange } from '@hookstream/partners';
import { callbackUrlGuard } from '../../src/adapters/http/callback-url-guard';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { notificationOutbox } from '../../src/adapters/store/notification-outbox';
import { operatorNotifications, subscriptionStore } from '../../src/adapters/store/notification-subscriptions';
import { inPartnerScope, partnerTransactions } from '../../src/adapters/store/partner-scope';
import { selfServicePlaces } from '../../src/adapters/store/self-service-limits';
import {
  subscribeToNotifications,
  switchNotifications,
  unsubscribeFromNotifications,
  type SubscribeDeps,
} from '../../src/domain/manage-notifications';
import { storesUnderTest } from '../support/stores';
import { acme } from './partner-fixture';

for (const [name, server] of storesUnderTest()) {
  describe(`subscribing to notifications on ${name}`, () => {
    let s: DeliveryLogStore;
    let audited: AuditedChange[];
    const deps = (allow: string[]): SubscribeDeps => {
      const scope = partnerTransactions(s.db, 'acme');
      return {
        store: subscriptionStore(scope),
        places: selfServicePlaces(scope),
        limit: { kind: 'notifications', count: 5, windowMs: 3_600_000 },
        urlGuard: callbackUrlGuard(allow),
        audit: {
          write: (_records, _actor, change) => {
            audited.push(change);
            return Promise.resolve({} as never);
          },
        },
      };
    };
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: { code?: string; problems?: unknown; message?: string }) => error,
      );

    beforeEach(async () => {
      s = await server.fresh();
      audited = [];
    });
    afterEach(() => s?.close());
    afterAll(() => server.stop());

    test('when the URL is on loopback and the deployment does not allow it, then it is refused naming the field, and nothing is kept', async () => {
      const error = await refusal(subscribeToNotifications(deps([]), acme(), { url: 'http://127.0.0.1:9/n' }, 'test'));

      expect(hasErrorCode(error, ErrorCodes.PARTNER_SPEC_INVALID)).toBe(true);
      expect(error).toEqual(expect.objectContaining({ problems: [{ field: 'url', message: expect.stringMatching(/SSRF guard/) }] }));
      expect(await subscriptionStore(partnerTransactions(s.db, 'acme')).get('acme')).toBeUndefined();
    });

    test('when the URL is plain http to a public host, then it is refused: https only', async () => {
      const error = await refusal(subscribeToNotifications(deps([]), acme(), { url: 'http://acme.example/n' }, 'test'));

      expect(error).toEqual(expect.objectContaining({ problems: [{ field: 'url', message: 'must be an https URL' }] }));
    });

    test('when the deployment allows loopback, then the subscription is kept with every event, and audited without the query', async () => {
      const stored = await subscribeToNotifications(deps(['127.0.0.0/8']), acme(), { url: 'http://127.0.0.1:9/n?token=t' }, 'ops');

      expect(stored).toEqual(expect.objectContaining({ url: 'http://127.0.0.1:9/n?token=t', operatorOff: false }));
      expect(stored.events).toHaveLength(5);
      expect(audited).toEqual([
        expect.objectContaining({
          action: 'partner.notifications-subscribe',
          detail: { url: 'http://127.0.0.1:9/n', events: stored.events },
        }),
      ]);
    });

    test('when the partner unsubscribes, then what was still to send is settled as not sent, not left pending for good', async () => {
      await subscribeToNotifications(deps(['127.0.0.0/8']), acme(), { url: 'http://127.0.0.1:9/n' }, 'ops');
      const now = new Date();
      await s.db
        .insertInto('notifications')
        .values({
          notification_id: 'n-1',
          partner_id: 'acme',
          type: 'partner.disabled',
          body: '{}',
          occurred_at: now,
          state: 'pending',
          next_attempt_at: now,
        })
        .execute();

      await unsubscribeFromNotifications(deps([]), acme(), 'done');

      const row = await s.db.selectFrom('notifications').select(['state', 'last_error']).executeTakeFirstOrThrow();
      expect(row).toEqual({ state: 'suppressed', last_error: 'not sent: the partner unsubscribed' });
      expect(audited.map((a) => a.action)).toEqual(['partner.notifications-subscribe', 'partner.notifications-unsubscribe']);
    });

    test('when self-service is off, or the partner has no signing secret, then it is refused (403, 409)', async () => {
      const off = await refusal(
        subscribeToNotifications(deps(['127.0.0.0/8']), acme({ self_service: false }), { url: 'http://127.0.0.1:9/n' }, 't'),
      );
      const unsigned = await refusal(
        subscribeToNotifications(deps(['127.0.0.0/8']), acme({ outbound_auth: null }), { url: 'http://127.0.0.1:9/n' }, 't'),
      );

      expect(hasErrorCode(off, ErrorCodes.FORBIDDEN)).toBe(true);
      expect(hasErrorCode(unsigned, ErrorCodes.CONFLICT)).toBe(true);
    });

    test('when an operator switched them off and the partner unsubscribes and subscribes again, then they stay off and nothing is sent', async () => {
      await subscribeToNotifications(deps(['127.0.0.0/8']), acme(), { url: 'http://127.0.0.1:9/n' }, 'ops');
      const operator = { partnerId: 'acme', enabled: false, actor: { type: 'operator', id: 'op', name: 'Op' }, reason: 'noisy' } as const;
      await switchNotifications(operatorNotifications(s.db), { write: () => Promise.resolve({} as never) }, operator);

      await unsubscribeFromNotifications(deps([]), acme(), 'bye');
      const again = await subscribeToNotifications(deps(['127.0.0.0/8']), acme(), { url: 'http://127.0.0.1:9/m' }, 'back');
      const now = new Date();
      await s.db
        .insertInto('notifications')
        .values({
          notification_id: 'n-2',
          partner_id: 'acme',
          type: 'partner.disabled',
          body: '{}',
          occurred_at: now,
          state: 'pending',
          next_attempt_at: now,
        })
        .execute();

      expect(again.operatorOff).toBe(true);
      const outbox = notificationOutbox(s.db, 20);
      expect(await outbox.judgedSubscriptions()).toEqual([]);
      expect(await outbox.claimDue(now, 10, 60_000)).toEqual([]);
    });

    test('when the partner role tries to write the operator switch or a notification, then PostgreSQL refuses it', async () => {
      await subscribeToNotifications(deps(['127.0.0.0/8']), acme(), { url: 'http://127.0.0.1:9/n' }, 'ops');

      const switchOn = await refusal(
        inPartnerScope(s.db, 'acme', (trx) => trx.updateTable('notification_subscriptions').set({ operator_off: true }).execute()),
      );
      const rewrite = await refusal(inPartnerScope(s.db, 'acme', (trx) => trx.updateTable('notifications').set({ body: 'x' }).execute()));

      expect(switchOn).toEqual(expect.objectContaining({ message: expect.stringMatching(/permission denied/) }));
      expect(rewrite).toEqual(expect.objectContaining({ message: expect.stringMatching(/permission denied/) }));
    });

    test('when the partner unsubscribes, then what was judged of it is forgotten: a resubscribe starts calm', async () => {
      await subscribeToNotifications(deps(['127.0.0.0/8']), acme(), { url: 'http://127.0.0.1:9/n' }, 'ops');
      await s.db
        .insertInto('notification_states')
        .values({ partner_id: 'acme', subject: 'endpoint:main', state: 'failing', generation: 1, notified: true, changed_at: new Date() })
        .execute();

      await unsubscribeFromNotifications(deps([]), acme(), 'done');

      expect(await s.db.selectFrom('notification_states').selectAll().execute()).toEqual([]);
    });

    test('when the partner unsubscribes, then it is counted under the same hourly limit as subscribing', async () => {
      const limited = { ...deps(['127.0.0.0/8']), limit: { kind: 'notifications', count: 2, windowMs: 3_600_000 } as const };
      await subscribeToNotifications(limited, acme(), { url: 'http://127.0.0.1:9/n' }, 'ops');
      await unsubscribeFromNotifications(limited, acme(), 'bye');

      const error = await refusal(subscribeToNotifications(limited, acme(), { url: 'http://127.0.0.1:9/n' }, 'again'));

      expect(hasErrorCode(error, ErrorCodes.TOO_MANY_REQUESTS)).toBe(true);
    });
  });
}
