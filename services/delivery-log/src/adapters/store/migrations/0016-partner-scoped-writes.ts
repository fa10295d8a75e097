import { sql, type Kysely, type Migration } from 'kysely';
import { PARTNER_READER_ROLE } from '../partner-scope';

const POLICY = 'partner_writes';
const callersPartner = sql`current_setting('app.partner_id', true)`;

/** The tables a partner's own requests write, and which of their rows are the partner's. */
const PARTNER_WRITTEN = [
  // The places under its limits (resend-reservations.ts, self-service-limits.ts), by their partner.
  { table: 'resend_reservations', rights: 'select, insert, delete', ownRow: sql`partner_id = ${callersPartner}` },
  { table: 'self_service_changes', rights: 'select, insert, delete', ownRow: sql`partner_id = ${callersPartner}` },
  // A retry now's claim (retry-now-claims.ts) names no partner: it is its delivery's partner's. Taken
  // by INSERT … ON CONFLICT DO UPDATE … RETURNING, which needs all four.
  {
    table: 'retry_now_claims',
    rights: 'select, insert, update, delete',
    ownRow: sql`exists (select 1 from deliveries d where d.delivery_id = retry_now_claims.delivery_id and d.partner_id = ${callersPartner})`,
  },
];

// The partner API's writes (its places under its limits, a retry now's claim) run as the partner
// role with the caller's partner set, as its reads do (partner-scope.ts, migration 0010): this lets
// that role write those tables and no other, and each policy, for every command, both shows it only
// the caller's rows (USING) and refuses a row it writes that is not the caller's (WITH CHECK).
//
// Only additive, and safe to run again (a policy or grant an administrator made first): a replica of
// the version before, still running during a rolling upgrade, writes these tables as their owner,
// whom row security does not restrict, and its reader transactions never touch them.
export const partnerScopedWrites: Migration = {
  async up(db: Kysely<unknown>) {
    const role = sql.id(PARTNER_READER_ROLE);
    const existing = await sql<{ tablename: string }>`
      select tablename from pg_policies where schemaname = current_schema() and policyname = ${POLICY}`.execute(db);
    const made = new Set(existing.rows.map((row) => row.tablename));
    for (const { table, rights, ownRow } of PARTNER_WRITTEN) {
      await sql`grant ${sql.raw(rights)} on ${sql.table(table)} to ${role}`.execute(db);
      await sql`alter table ${sql.table(table)} enable row level security`.execute(db);
      if (made.has(table)) continue;
      await sql`
        create policy ${sql.id(POLICY)} on ${sql.table(table)} for all to ${role}
        using (${ownRow}) with check (${ownRow})`.execute(db);
    }
  },
};
