/*
 * The notifications' outbox and their subjects' states (migration 0018) on the log's database: the
 * evaluator's transitions and the sender's claims (domain/evaluate-notifications.ts,
 * domain/send-notifications.ts). Run as the store's own user: every partner's rows.
 *
 * A transition is decided under the subject's row lock (SELECT … FOR UPDATE after making sure the
 * row exists): two evaluators judging the same change queue on it, and the second finds the state
 * already changed, so it neither changes it again nor enqueues a second notification.
 */
import { sql } from 'kysely';
import type { NewNotification, NotificationSubscription, NotificationTransitions } from '../../domain/evaluate-notifications';
import { calmStateOf, type NotificationType, type Observation } from '../../domain/notification-events';
import type { AttemptOutcome, DueNotification, NotificationSending } from '../../domain/send-notifications';
import type { DeliveryLogDb } from './tables';

const HOUR_MS = 3_600_000;
/** The first key of the hourly bound's advisory lock (not the self-service limits' 0x5e1f nor the resends' 0x7e5e). */
const BOUND_LOCK = 0x4e07;

/** `perHour`: notifications one partner is sent in an hour at most; past it they are kept as suppressed. */
export function notificationOutbox(db: DeliveryLogDb, perHour: number): NotificationTransitions & NotificationSending {
  return {
    async judgedSubscriptions(): Promise<NotificationSubscription[]> {
      const rows = await db
        .selectFrom('notification_subscriptions')
        .selectAll()
        .where('operator_off', '=', false)
        .where('url', 'is not', null)
        .execute();
      return rows.map((row) => subscriptionOf({ ...row, url: row.url! }));
    },

    async recordedStates(partnerId: string): Promise<Map<string, string>> {
      const rows = await db.selectFrom('notification_states').select(['subject', 'state']).where('partner_id', '=', partnerId).execute();
      return new Map(rows.map((row) => [row.subject, row.state]));
    },

    transition(partnerId: string, observation: Observation, now: Date, decide) {
      return db.transaction().execute(async (trx) => {
        // Still subscribed and not switched off, held so until commit: an unsubscribe or a switch-off
        // (an UPDATE of this row) waits for this transaction, then settles what it enqueued; one
        // already committed is seen here, and nothing is enqueued (nor recorded) to be left pending for good.
        const subscription = await trx
          .selectFrom('notification_subscriptions')
          .select('partner_id')
          .where('partner_id', '=', partnerId)
          .where('url', 'is not', null)
          .where('operator_off', '=', false)
          .forShare()
          .executeTakeFirst();
        if (!subscription) return undefined;
        const key = { partner_id: partnerId, subject: observation.subject };
        await trx
          .insertInto('notification_states')
          .values({ ...key, state: calmStateOf(observation.subject), generation: 0, changed_at: now })
          .onConflict((oc) => oc.columns(['partner_id', 'subject']).doNothing())
          .execute();
        const current = await trx
          .selectFrom('notification_states')
          .select(['state', 'notified', 'revision'])
          .where('partner_id', '=', partnerId)
          .where('subject', '=', observation.subject)
          .forUpdate()
          .executeTakeFirstOrThrow();
        if (current.state === observation.state) return undefined;
        // Judged at a revision no newer than the one recorded: this replica's directory is behind, not a change.
        if (observation.revision !== undefined && current.revision !== null && observation.revision <= current.revision) return undefined;
        const notification: NewNotification | undefined = decide(current.state, current.notified);
        const state = notification ? await stateWithinBound(trx, partnerId, now, perHour) : undefined;
        await trx
          .updateTable('notification_states')
          .set((eb) => ({
            state: observation.state,
            generation: eb('generation', '+', 1),
            changed_at: now,
            notified: state === 'pending',
            revision: observation.revision ?? null,
          }))
          .where('partner_id', '=', partnerId)
          .where('subject', '=', observation.subject)
          .execute();
        if (!notification || !state) return undefined;
        await trx
          .insertInto('notifications')
          .values({
            notification_id: notification.id,
            partner_id: partnerId,
            type: notification.type,
            body: notification.body,
            occurred_at: now,
            state,
            next_attempt_at: now,
            last_error: state === 'suppressed' ? `not sent: more than ${perHour} notifications in the hour` : null,
            settled_at: state === 'suppressed' ? now : null,
          })
          .execute();
        return notification;
      });
    },

    claimDue(now: Date, limit: number, leaseMs: number): Promise<DueNotification[]> {
      return db.transaction().execute(async (trx) => {
        // Skip rows another replica holds: each is claimed by one, then leased past its own transaction.
        const { rows } = await sql<{
          notification_id: string;
          partner_id: string;
          type: string;
          body: string;
          attempts: number;
          url: string;
        }>`
          select n.notification_id, n.partner_id, n.type, n.body, n.attempts, s.url
          from notifications n join notification_subscriptions s on s.partner_id = n.partner_id
          where n.state = 'pending' and n.next_attempt_at <= ${now} and not s.operator_off and s.url is not null
          order by n.next_attempt_at
          limit ${limit}
          for update of n skip locked`.execute(trx);
        if (rows.length === 0) return [];
        await trx
          .updateTable('notifications')
          .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: new Date(now.getTime() + leaseMs) }))
          .where(
            'notification_id',
            'in',
            rows.map((r) => r.notification_id),
          )
          .execute();
        return rows.map((r) => ({
          notificationId: r.notification_id,
          partnerId: r.partner_id,
          type: r.type as NotificationType,
          body: r.body,
          attempt: r.attempts + 1,
          url: r.url,
        }));
      });
    },

    async settle(notificationId: string, outcome: AttemptOutcome, at: Date): Promise<void> {
      await db
        .updateTable('notifications')
        .set({
          state: outcome.state,
          last_http_status: outcome.httpStatus,
          last_error: outcome.state === 'delivered' ? null : outcome.error.slice(0, 500),
          ...(outcome.state === 'pending' ? { next_attempt_at: outcome.nextAttemptAt } : { settled_at: at }),
        })
        .where('notification_id', '=', notificationId)
        .where('state', '=', 'pending')
        .execute();
    },
  };
}

/** pending, or suppressed when the partner was already enqueued `perHour` notifications in the hour before `now`. */
async function stateWithinBound(trx: DeliveryLogDb, partnerId: string, now: Date, perHour: number): Promise<'pending' | 'suppressed'> {
  // Transitions of the partner's other subjects, decided at once on other replicas, count one after the other.
  await sql`select pg_advisory_xact_lock(${BOUND_LOCK}::integer, hashtext(${partnerId}))`.execute(trx);
  const { count } = await trx
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('partner_id', '=', partnerId)
    .where('state', '!=', 'suppressed')
    .where('occurred_at', '>', new Date(now.getTime() - HOUR_MS))
    .executeTakeFirstOrThrow();
  return Number(count) >= perHour ? 'suppressed' : 'pending';
}

export function subscriptionOf(row: {
  partner_id: string;
  url: string;
  events: string[];
  operator_off: boolean;
}): NotificationSubscription {
  return { partnerId: row.partner_id, url: row.url, events: row.events as NotificationType[], operatorOff: row.operator_off };
}
