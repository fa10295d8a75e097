import { sql, type Kysely, type Migration } from 'kysely';

export const selfServiceChanges: Migration = {
  async up(db: Kysely<unknown>) {
    // A partner's own changes of its configuration through the partner API (its endpoints, its
    // signing secret), written by the API when it accepts one (self-service-limits.ts): each kind's
    // limit holds at once and across replicas, as the resend limit's. The API's own state, not a
    // projection of the topics; pruned once older than the longest window a limit counts in (a day).
    await sql`
      create table self_service_changes (
        change_id text primary key,
        partner_id text not null,
        kind text not null,
        reserved_at timestamptz not null
      )`.execute(db);
    await sql`create index self_service_changes_partner on self_service_changes (partner_id, kind, reserved_at)`.execute(db);
    await sql`create index self_service_changes_time on self_service_changes (reserved_at)`.execute(db);
  },
};
