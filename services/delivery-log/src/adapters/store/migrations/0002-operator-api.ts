import { sql, type Kysely, type Migration } from 'kysely';

// Who changed what and why: one row per admin-audit record, and one per replay run (its id), so
// that one trail lists every change and every replay, whoever made it. Replays learn their actor.
export const operatorApi: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table audit_log (
        audit_id text primary key,
        at timestamptz not null,
        actor_type text not null,
        actor_id text not null,
        actor_name text not null,
        action text not null,
        subject_type text not null,
        subject_id text not null,
        reason text not null,
        detail jsonb not null
      )`.execute(db);
    await sql`create index audit_log_newest on audit_log (at desc, audit_id desc)`.execute(db);
    await sql`create index audit_log_subject on audit_log (subject_id, at desc)`.execute(db);
    await sql`alter table replays add column actor_type text not null default 'cli', add column actor_id text not null default ''`.execute(
      db,
    );
    await sql`create index replays_actor on replays (actor_type, actor_id, replayed_at)`.execute(db);

    // An endpoint's health (success rate, p95 latency over the last hour and day) reads its
    // attempts by time without going through deliveries. Null in rows projected before this.
    await sql`alter table delivery_attempts add column partner_id text, add column endpoint_id text`.execute(db);
    await sql`create index delivery_attempts_partner_time on delivery_attempts (partner_id, recorded_at)`.execute(db);
  },
};
