/* The operational notifications' tables (migration 0018), as Kysely sees them (tables.ts gathers them). */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** A partner's notification URL (migration 0018; notification-store.ts). */
export interface NotificationSubscriptionsTable {
  partner_id: string;
  /** Null once the partner unsubscribed: the row stays to keep the operator's switch. */
  url: string | null;
  events: string[];
  /** An operator switched the partner's notifications off. */
  operator_off: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** What the evaluator last judged of one subject of a partner (migration 0018). */
export interface NotificationStatesTable {
  partner_id: string;
  /** `endpoint:<id>`, `dead_letters` or `partner`. */
  subject: string;
  state: string;
  /** Bumped at each transition: names the transition (its notification's id). */
  generation: number;
  /** Whether the transition into `state` was notified (sent, not suppressed): a recovery is only news after a failing was. */
  notified: Generated<boolean>;
  /** The partner subject only: the partner's revision its state was judged at (a replica behind never turns it back). */
  revision: Generated<number | null>;
  changed_at: Timestamp;
}

/** One notification to send or sent (migration 0018): the outbox. */
export interface NotificationsTable {
  notification_id: string;
  partner_id: string;
  type: string;
  /** The exact JSON body sent on every attempt. */
  body: string;
  occurred_at: Timestamp;
  state: 'pending' | 'delivered' | 'given_up' | 'suppressed';
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_http_status: number | null;
  last_error: string | null;
  settled_at: Timestamp | null;
}
