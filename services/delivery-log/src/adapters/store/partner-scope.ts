/*
 * The partner API's second guard. Its queries take the caller's partner id and filter by it, route
 * by route; these reads also run in a transaction as a role that PostgreSQL's row security limits to
 * the partner set in it (migration 0010), so a route that forgot the filter would still read only
 * the caller's rows, and one with no partner set reads none.
 */
import { sql } from 'kysely';
import type { DeliveryLogDb } from './tables';

/** The role partner reads run as: select on partner-owned tables, under their row policies. */
export const PARTNER_READER_ROLE = 'hookstream_partner_reader';

/**
 * Runs `read` in a transaction as PARTNER_READER_ROLE with app.partner_id set to `partnerId`; both
 * are local to the transaction (set_config(…, true)), so the connection goes back to the pool as it came.
 */
export function inPartnerScope<T>(db: DeliveryLogDb, partnerId: string, read: (scoped: DeliveryLogDb) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    // One statement for both (set_config('role', …, true) is SET LOCAL ROLE): a round trip less per request.
    await sql`select set_config('role', ${PARTNER_READER_ROLE}, true), set_config('app.partner_id', ${partnerId}, true)`.execute(trx);
    return read(trx);
  });
}
