/*
 * The limits of a partner's own configuration changes through the partner API (its endpoints, its
 * signing secret), kept by the API as the resend limit is (resend-reservations.ts): a change takes
 * a place before it is made and gives it back when it is not, each counted and written in one
 * transaction under an advisory lock keyed on the partner, so concurrent requests on any replica
 * cannot all pass. A partner's places are counted and written in its scope (partner-scope.ts,
 * migration 0016).
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { InTransaction } from './partner-scope';
import type { SelfServiceLimit, SelfServicePlaces, SelfServicePlace } from '../../domain/self-service';

/** The first key of the two-key advisory lock: not the resend limit's (0x7e5e). */
const LOCK_CLASS = 0x5e1f;

/** `inTransaction`: the partner's scope (partnerTransactions) the places are counted and written in. */
export function selfServicePlaces(inTransaction: InTransaction): SelfServicePlaces {
  return {
    reserve(partnerId: string, limit: SelfServiceLimit, now: Date): Promise<SelfServicePlace> {
      return inTransaction(async (trx) => {
        await sql`select pg_advisory_xact_lock(${LOCK_CLASS}::integer, ${lockKeyOf(partnerId)}::integer)`.execute(trx);
        // The limit-th newest of the window: if there is one, the limit is reached until it leaves the window.
        const limiting = await trx
          .selectFrom('self_service_changes')
          .select('reserved_at')
          .where('partner_id', '=', partnerId)
          .where('kind', '=', limit.kind)
          .where('reserved_at', '>', new Date(now.getTime() - limit.windowMs))
          .orderBy('reserved_at', 'desc')
          .offset(limit.count - 1)
          .limit(1)
          .executeTakeFirst();
        if (limiting) {
          const seconds = Math.ceil((limiting.reserved_at.getTime() + limit.windowMs - now.getTime()) / 1000);
          return { reserved: false, retryAfterSeconds: Math.min(limit.windowMs / 1000, Math.max(1, seconds)) };
        }
        const changeId = randomUUID();
        await trx
          .insertInto('self_service_changes')
          .values({ change_id: changeId, partner_id: partnerId, kind: limit.kind, reserved_at: now })
          .execute();
        return { reserved: true, changeId };
      });
    },
    async release(changeId: string): Promise<void> {
      await inTransaction((trx) => trx.deleteFrom('self_service_changes').where('change_id', '=', changeId).execute());
    },
  };
}

function lockKeyOf(partnerId: string): number {
  return createHash('sha256').update(partnerId).digest().readInt32BE(0);
}
