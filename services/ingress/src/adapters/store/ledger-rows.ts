/*
 * One key's row of the request_id ledger (ledger-tables.ts) as IdempotencyLedger reads it, and the
 * statements on that one row off the hot path: a takeover of an abandoned claim, its renewal after
 * a search, the release of a claim under which nothing was written.
 */
import { sql, type Kysely } from 'kysely';
import type { Completion } from '../../domain/request-id-ledger';
import type { ClaimItem } from './ledger-writes';
import type { LedgerTables } from './ledger-tables';

/** A ledger row as IdempotencyLedger reads it. */
export interface RowState {
  claim_id: string;
  fingerprint: string;
  claimant_instance: string;
  completed: boolean;
  transaction_number: string | null;
  transaction_type: 'POLICY' | 'CLAIM' | null;
  /** Epoch ms (server clock). */
  claimed_ms: number;
  unchecked_ms: number;
  /** Not completed and older than the claim TTL. */
  abandoned: boolean;
}

/** The completion recorded on a completed row. */
export function completionOf(requestId: string, row: RowState): Completion {
  return {
    fingerprint: row.fingerprint,
    requestId,
    transactionNumber: row.transaction_number!,
    transactionType: row.transaction_type!,
  };
}

const secondsOf = (ms: number) => ms / 1000;

/** The row of (partner, request_id), or undefined when there is none; `abandoned` by the claim TTL, on the server's clock. */
export async function readRow(
  db: Kysely<LedgerTables>,
  partnerId: string,
  requestId: string,
  claimTtlMs: number,
): Promise<RowState | undefined> {
  const { rows } = await sql<RowState>`
    select claim_id, fingerprint, claimant_instance, completed_at is not null as completed,
           transaction_number, transaction_type,
           (extract(epoch from claimed_at) * 1000)::bigint as claimed_ms,
           (extract(epoch from unchecked_since) * 1000)::bigint as unchecked_ms,
           (completed_at is null and claimed_at < now() - make_interval(secs => ${secondsOf(claimTtlMs)})) as abandoned
    from ingress_request_ledger where partner_id = ${partnerId} and request_id = ${requestId}`.execute(db);
  return rows[0];
}

/** Replaces the abandoned claim `abandonedClaimId` by `claim`; true for the one request whose update succeeds. */
export async function takeOverRow(
  db: Kysely<LedgerTables>,
  claim: ClaimItem,
  abandonedClaimId: string,
  instance: string,
  claimTtlMs: number,
): Promise<boolean> {
  const { partnerId, requestId, claimId, fingerprint } = claim;
  const { numAffectedRows } = await sql`
    update ingress_request_ledger
    set claim_id = ${claimId}, fingerprint = ${fingerprint}, claimant_instance = ${instance}, claimed_at = now()
    where partner_id = ${partnerId} and request_id = ${requestId} and claim_id = ${abandonedClaimId} and completed_at is null
      and claimed_at < now() - make_interval(secs => ${secondsOf(claimTtlMs)})`.execute(db);
  return numAffectedRows === 1n;
}

/** After a search that found nothing: the span searched is not searched again, and the claim's time starts now; false if the claim is no longer this one. */
export async function renewAfterSearch(db: Kysely<LedgerTables>, partnerId: string, requestId: string, claimId: string): Promise<boolean> {
  const { numAffectedRows } = await sql`
    update ingress_request_ledger set unchecked_since = claimed_at, claimed_at = now()
    where partner_id = ${partnerId} and request_id = ${requestId} and claim_id = ${claimId} and completed_at is null`.execute(db);
  return numAffectedRows === 1n;
}

/** Deletes the claim `claimId` if not completed. */
export async function releaseClaim(db: Kysely<LedgerTables>, partnerId: string, requestId: string, claimId: string): Promise<void> {
  await sql`delete from ingress_request_ledger
      where partner_id = ${partnerId} and request_id = ${requestId} and claim_id = ${claimId} and completed_at is null`.execute(db);
}
