import { sql, type Kysely, type Migration } from 'kysely';
import { PARTNER_READER_ROLE } from '../partner-scope';

// A delivery's timeline (domain/delivery-timeline.ts) needs two times the log did not keep; every
// other step's was kept already (a request's created_at, an attempt's recorded_at and latency, a
// replay's time). Null or absent for what was projected before this migration.
export const deliveryTimeline: Migration = {
  async up(db: Kysely<unknown>) {
    // When the core system published the policy status event: the policy-status record's timestamp,
    // which the fan-out copies onto each request it makes (header hookstream-published-at).
    await sql`alter table deliveries add column if not exists published_at timestamptz`.execute(db);
    // When each retry now of a delivery was asked for: its RETRY_NOW request's record timestamp (the
    // API writes it as it accepts the retry; its created_at is the delivery's own, and the log keeps
    // no row of that request otherwise). Keyed by delivery and time, so a record read again writes
    // nothing new.
    await sql`
      create table if not exists retry_now_requests (
        delivery_id text not null,
        partner_id text not null,
        asked_at timestamptz not null,
        primary key (delivery_id, asked_at)
      )`.execute(db);
    // A partner reads its own, as it reads its deliveries (migration 0010).
    const role = sql.id(PARTNER_READER_ROLE);
    await sql`grant select on retry_now_requests to ${role}`.execute(db);
    await sql`alter table retry_now_requests enable row level security`.execute(db);
    await sql`
      do $$ begin
        create policy partner_rows on retry_now_requests for select to ${role}
        using (partner_id = current_setting('app.partner_id', true));
      exception when duplicate_object then null;
      end $$`.execute(db);
  },
};
