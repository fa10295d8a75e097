import { sql, type Kysely, type Migration } from 'kysely';
import { PARTNER_READER_ROLE } from '../partner-scope';

const callersPartner = sql`current_setting('app.partner_id', true)`;

// Operational notifications (docs/notifications.md): the API's own state, not a projection.
// - notification_subscriptions: a partner's one notification URL and the events it wants; the
//   operator's switch (operator_off) beside it. Written by the partner (in its scope) and the operator.
//   Unsubscribing keeps the row with no URL (a tombstone), so the operator's switch outlives the
//   partner's unsubscribe and resubscribe; the partner's role can write neither it nor the switch.
// - notification_states: what the evaluator last judged of each subject of a partner (an endpoint,
//   its dead letters, the partner's status). One row per subject: a transition is won by the one
//   conditional UPDATE (… where state <> new) that changes it, so replicas never notify it twice.
// - notifications: the outbox, a row per notification, claimed with FOR UPDATE SKIP LOCKED by the
//   sender of any replica; pruned with the log's other rows once settled.
export const operationalNotifications: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table notification_subscriptions (
        partner_id text primary key,
        url text,
        events text[] not null,
        operator_off boolean not null default false,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`.execute(db);
    await sql`
      create table notification_states (
        partner_id text not null,
        subject text not null,
        state text not null,
        generation integer not null,
        notified boolean not null default false,
        revision integer,
        changed_at timestamptz not null,
        primary key (partner_id, subject)
      )`.execute(db);
    await sql`
      create table notifications (
        notification_id text primary key,
        partner_id text not null,
        type text not null,
        body text not null,
        occurred_at timestamptz not null,
        state text not null,
        attempts integer not null default 0,
        next_attempt_at timestamptz not null,
        last_http_status integer,
        last_error text,
        settled_at timestamptz
      )`.execute(db);
    // The sender's claim: only the rows still to send.
    await sql`create index notifications_due on notifications (next_attempt_at) where state = 'pending'`.execute(db);
    // A partner's list (newest first, keyset) and its hourly bound.
    await sql`create index notifications_partner on notifications (partner_id, occurred_at desc, notification_id desc)`.execute(db);
    await sql`create index notifications_time on notifications (occurred_at)`.execute(db);

    // The partner API reads its subscription and notifications, and writes its subscription, in its
    // scope (partner-scope.ts): only its own rows, as migrations 0010 and 0016 do for the others, and
    // only the columns it writes (never operator_off, nor a notification's content).
    const role = sql.id(PARTNER_READER_ROLE);
    const ownRow = sql`partner_id = ${callersPartner}`;
    for (const [table, rights] of [
      ['notification_subscriptions', 'select, insert (partner_id, url, events, created_at, updated_at), update (url, events, updated_at)'],
      // update: unsubscribing settles what was still to send (notification-subscriptions.ts).
      ['notifications', 'select, update (state, settled_at, last_error)'],
      // delete: unsubscribing forgets what was judged, so a resubscribe starts calm.
      ['notification_states', 'select, delete'],
    ] as const) {
      await sql`grant ${sql.raw(rights)} on ${sql.table(table)} to ${role}`.execute(db);
      await sql`alter table ${sql.table(table)} enable row level security`.execute(db);
      await sql`create policy partner_rows on ${sql.table(table)} for all to ${role} using (${ownRow}) with check (${ownRow})`.execute(db);
    }
  },
};
