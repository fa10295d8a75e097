/*
 * Partners' notification subscriptions and their notifications, listed (migration 0018). The
 * partner's own are read and written in its scope (partner-scope.ts: PostgreSQL's row security
 * gives its role only its rows); the operator's switch runs as the store's own user.
 */
import { sql } from 'kysely';
import type { NotificationRecord, OperatorSwitchStore, StoredSubscription, SubscriptionStore } from '../../domain/manage-notifications';
import type { NotificationType } from '../../domain/notification-events';
import { subscriptionOf } from './notification-outbox';
import type { InTransaction } from './partner-scope';
import { pageOf, type Page, type PageCursor } from './queries/page';
import type { DeliveryLogDb } from './tables';

/** A partner's recent notifications, newest first, a page at a time. */
export interface NotificationList {
  recent(partnerId: string, page: { limit: number; cursor?: PageCursor | undefined }): Promise<Page<NotificationRecord>>;
}

/** `inTransaction`: the partner's scope its subscription is read and written in. */
export function subscriptionStore(inTransaction: InTransaction): SubscriptionStore & NotificationList {
  return {
    get: (partnerId) => inTransaction((trx) => subscriptionIn(trx, partnerId)),
    put: (partnerId, subscription, now) =>
      inTransaction(async (trx) => {
        const row = await trx
          .insertInto('notification_subscriptions')
          .values({ partner_id: partnerId, url: subscription.url, events: subscription.events, created_at: now, updated_at: now })
          .onConflict((oc) => oc.column('partner_id').doUpdateSet({ url: subscription.url, events: subscription.events, updated_at: now }))
          .returningAll()
          .executeTakeFirstOrThrow();
        return storedOf({ ...row, url: subscription.url });
      }),
    remove: (partnerId) =>
      inTransaction(async (trx) => {
        // A tombstone, not a delete: the operator's switch stays for a later resubscribe (migration 0018).
        const result = await trx
          .updateTable('notification_subscriptions')
          .set({ url: null, events: [], updated_at: new Date() })
          .where('partner_id', '=', partnerId)
          .where('url', 'is not', null)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        // Nowhere to send them any more: what was still to send is settled, not left pending for good.
        await suppressPending(trx, partnerId, new Date(), 'not sent: the partner unsubscribed');
        // What was judged is forgotten: a resubscribe weeks later is not told of a recovery from a failure long gone.
        await trx.deleteFrom('notification_states').where('partner_id', '=', partnerId).execute();
        return true;
      }),
    recent: (partnerId, page) => inTransaction((trx) => recentIn(trx, partnerId, page)),
  };
}

/** The operator's view and switch, as the store's own user. */
export function operatorNotifications(db: DeliveryLogDb): OperatorSwitchStore & NotificationList & Pick<SubscriptionStore, 'get'> {
  return {
    get: (partnerId) => subscriptionIn(db, partnerId),
    recent: (partnerId, page) => recentIn(db, partnerId, page),
    setOperatorOff: (partnerId, off, now) =>
      db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable('notification_subscriptions')
          .set({ operator_off: off, updated_at: now })
          .where('partner_id', '=', partnerId)
          .where('url', 'is not', null)
          .returningAll()
          .executeTakeFirst();
        // Switched off: what was still to send is never sent (nor later, once switched on again: it is stale by then).
        if (row && off) await suppressPending(trx, partnerId, now, 'not sent: an operator switched notifications off');
        return row && storedOf({ ...row, url: row.url! });
      }),
  };
}

async function suppressPending(trx: DeliveryLogDb, partnerId: string, now: Date, why: string): Promise<void> {
  await trx
    .updateTable('notifications')
    .set({ state: 'suppressed', settled_at: now, last_error: why })
    .where('partner_id', '=', partnerId)
    .where('state', '=', 'pending')
    .execute();
}

async function subscriptionIn(db: DeliveryLogDb, partnerId: string): Promise<StoredSubscription | undefined> {
  const row = await db
    .selectFrom('notification_subscriptions')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('url', 'is not', null)
    .executeTakeFirst();
  return row && storedOf({ ...row, url: row.url! });
}

async function recentIn(
  db: DeliveryLogDb,
  partnerId: string,
  page: { limit: number; cursor?: PageCursor | undefined },
): Promise<Page<NotificationRecord>> {
  const cursor = page.cursor;
  const rows = await db
    .selectFrom('notifications')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .$if(cursor !== undefined, (qb) => qb.where(sql<boolean>`(occurred_at, notification_id) < (${cursor!.at}, ${cursor!.id})`))
    .orderBy('occurred_at', 'desc')
    .orderBy('notification_id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const records = rows.map((r): NotificationRecord => ({
    notification_id: r.notification_id,
    type: r.type as NotificationType,
    occurred_at: r.occurred_at,
    state: r.state,
    attempts: r.attempts,
    last_http_status: r.last_http_status,
    last_error: r.last_error,
    settled_at: r.settled_at,
    body: JSON.parse(r.body) as unknown,
  }));
  return pageOf(records, page.limit, (r) => ({ at: r.occurred_at, id: r.notification_id }));
}

function storedOf(row: {
  partner_id: string;
  url: string;
  events: string[];
  operator_off: boolean;
  created_at: Date;
  updated_at: Date;
}): StoredSubscription {
  return { ...subscriptionOf(row), createdAt: row.created_at, updatedAt: row.updated_at };
}
