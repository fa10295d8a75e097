/*
 * The partner API's second guard. Its queries take the caller's partner id and filter by it, route
 * by route; they also run in a transaction as a role that PostgreSQL's row security limits to the
 * partner set in it (migration 0010 for the reads, 0016 for the places under a partner's limits), so
 * a route that forgot the filter would still read and write only the caller's rows, and one with no
 * partner set none.
 */
import { sql } from 'kysely';
import type { DeliveryLogDb } from './tables';

/**
 * The role partner queries run as: select on partner-owned tables, and insert, update and delete on
 * the partner's own places (migration 0016), under their row policies. Named for what it first did:
 * replicas of every version and other databases on the server name it so.
 */
export const PARTNER_READER_ROLE = 'hookstream_partner_reader';

/** Runs `work` in a transaction of its own, each call; which user and rows it has is the maker's (below). */
export type InTransaction = <T>(work: (trx: DeliveryLogDb) => Promise<T>) => Promise<T>;

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

/** Transactions in `partnerId`'s scope: what a partner's writes run in. */
export function partnerTransactions(db: DeliveryLogDb, partnerId: string): InTransaction {
  return (work) => inPartnerScope(db, partnerId, work);
}

/** Transactions as the store's own user, every partner's rows: the operator API's retry now and the stores' own tests. */
export function ownerTransactions(db: DeliveryLogDb): InTransaction {
  return (work) => db.transaction().execute(work);
}
