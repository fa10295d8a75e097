import { sql, type Kysely, type Migration } from 'kysely';
import { PARTNER_READER_ROLE } from '../partner-scope';

/** Tables whose rows belong to the partner their partner_id names. */
const BY_PARTNER_ID = [
  'partners',
  'deliveries',
  'delivery_attempts',
  'dead_letters',
  'webhooks',
  'documents',
  'rejected_webhooks',
  'webhook_replays',
];

// The partner API's reads run as PARTNER_READER_ROLE with the caller's partner in app.partner_id
// (partner-scope.ts), and these policies give that role only that partner's rows: a query that
// forgets its partner filter still reads no other partner's. The role may only select, and only
// from these tables. Table owners (this database's user, which runs the projection and the operator
// API) are not subject to row security unless forced, so they keep reading and writing every row.
export const partnerRowSecurity: Migration = {
  async up(db: Kysely<unknown>) {
    const role = sql.id(PARTNER_READER_ROLE);
    // Roles belong to the server, not the database: another database of it may have made it already
    // (or an administrator, for a user without CREATEROLE). Two logs migrating at once on one server
    // race to create it: the loser's error is duplicate_object or, from the catalogue's unique index,
    // unique_violation; either means the role is there. The grant is a block of its own, so that the
    // lost race does not skip it. SET ROLE needs the session's user to be a member.
    await sql`
      do $$ begin
        if not exists (select from pg_roles where rolname = ${sql.lit(PARTNER_READER_ROLE)}) then
          create role ${role} nologin;
        end if;
      exception when duplicate_object or unique_violation then null;
      end $$`.execute(db);
    await sql`
      do $$ begin
        if not pg_has_role(current_user, ${sql.lit(PARTNER_READER_ROLE)}, 'member') then
          grant ${role} to current_user;
        end if;
      exception when duplicate_object or unique_violation then null;
      end $$`.execute(db);
    // Attempts projected before migration 0002 have no partner_id: their delivery's.
    await sql`
      update delivery_attempts a set partner_id = d.partner_id
      from deliveries d where a.partner_id is null and d.delivery_id = a.delivery_id`.execute(db);
    const partnerOnly = sql`partner_id = current_setting('app.partner_id', true)`;
    for (const table of BY_PARTNER_ID) {
      await sql`grant select on ${sql.table(table)} to ${role}`.execute(db);
      await sql`alter table ${sql.table(table)} enable row level security`.execute(db);
      await sql`create policy partner_rows on ${sql.table(table)} for select to ${role} using (${partnerOnly})`.execute(db);
    }
    // A replay names the delivery it re-queued, not a partner: visible with its delivery, which the policy above scopes (a document's replay matches no delivery, so no partner sees it).
    await sql`grant select on replays to ${role}`.execute(db);
    await sql`alter table replays enable row level security`.execute(db);
    await sql`
      create policy partner_rows on replays for select to ${role}
      using (exists (select 1 from deliveries d where d.delivery_id = replays.subject_id))`.execute(db);
  },
};
