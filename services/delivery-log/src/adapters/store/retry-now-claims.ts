/*
 * At most one retry now in flight per delivery, on every replica sharing the log's store: a retry
 * now is accepted only with the delivery's claim, taken in one INSERT … ON CONFLICT statement, so
 * that of twenty presses at once one wins (PostgreSQL makes the others wait for its row and then
 * judge it). A claim stands until the log has the retry's own outcome (an attempt of trigger
 * RETRY_NOW numbered after the attempts the delivery had when it was accepted: no step of the
 * projection has to remember to clear it) or until it expires (the endpoint's timeout and a margin
 * after it was accepted: a retry lost on its way blocks no one for ever). Before the double click
 * that this refuses, every press passed the "failing" check and sent the callback once more. A
 * partner's claims are taken in its scope (partner-scope.ts, migration 0016: a claim is the partner's
 * whose delivery it names); an operator's as the store's own user.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { InTransaction } from './partner-scope';

export type RetryNowClaim = { claimed: true; claimId: string } | { claimed: false; claimedAt: Date; expiresAt: Date };

export class RetryNowClaims {
  constructor(private readonly inTransaction: InTransaction) {}

  /** The delivery's claim for a retry now accepted at `now`, holding until `expiresAt`; or the claim in the way. */
  claim(deliveryId: string, attemptsBefore: number, now: Date, expiresAt: Date): Promise<RetryNowClaim> {
    const claimId = randomUUID();
    // One transaction for both statements (one scope to set); each still reads what was committed before it.
    return this.inTransaction<RetryNowClaim>(async (trx) => {
      const taken = await sql<{ claim_id: string }>`
        insert into retry_now_claims as c (delivery_id, claim_id, attempts_before, claimed_at, expires_at)
        values (${deliveryId}, ${claimId}, ${attemptsBefore}, ${now}, ${expiresAt})
        on conflict (delivery_id) do update set
          claim_id = excluded.claim_id,
          attempts_before = excluded.attempts_before,
          claimed_at = excluded.claimed_at,
          expires_at = excluded.expires_at
        where c.expires_at <= excluded.claimed_at
          or exists (
            select 1 from delivery_attempts a
            where a.delivery_id = c.delivery_id and a.trigger = 'RETRY_NOW' and a.attempt > c.attempts_before)
        returning claim_id`.execute(trx);
      if (taken.rows.length > 0) return { claimed: true, claimId };
      const holding = await trx
        .selectFrom('retry_now_claims')
        .select(['claimed_at', 'expires_at'])
        .where('delivery_id', '=', deliveryId)
        .executeTakeFirst();
      // Given back in between (its retry was not written): still refused, a moment's wait tells the caller as much.
      return { claimed: false, claimedAt: holding?.claimed_at ?? now, expiresAt: holding?.expires_at ?? now };
    });
  }

  /** Gives a claim back: its retry now was not written. */
  async release(claimId: string): Promise<void> {
    await this.inTransaction((trx) => trx.deleteFrom('retry_now_claims').where('claim_id', '=', claimId).execute());
  }
}
