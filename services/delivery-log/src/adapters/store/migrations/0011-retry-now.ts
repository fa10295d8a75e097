import { sql, type Kysely, type Migration } from 'kysely';

export const retryNow: Migration = {
  async up(db: Kysely<unknown>) {
    // A test event's delivery (its request's trigger TEST), marked so lists can tell it from a real one.
    await sql`alter table deliveries add column test boolean not null default false`.execute(db);
    // A failing delivery's next attempt (the due time of the tier its last failure went to), from its attempts (delivery-summary.ts).
    await sql`alter table deliveries add column next_attempt_at timestamptz`.execute(db);
    // The trigger of the request an outcome is of (RETRY_NOW, TEST; null for a policy status change) and the retry's due time.
    await sql`alter table delivery_attempts add column trigger text`.execute(db);
    await sql`alter table delivery_attempts add column next_attempt_at timestamptz`.execute(db);
    // Test events are limited apart from resends (a minute's window): the reservations say which limit they count in.
    await sql`alter table resend_reservations add column kind text not null default 'resend'`.execute(db);
    await sql`create index resend_reservations_partner_kind_time on resend_reservations (partner_id, kind, reserved_at)`.execute(db);
  },
};
