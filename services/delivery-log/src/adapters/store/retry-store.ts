/* A retry now's store (domain/retry-delivery.ts RetryStore) on the log's PostgreSQL database: the delivery's row, its retry-now claim and the resends' reservations. */
import type { RetryStore } from '../../domain/retry-delivery';
import { inPartnerScope, ownerTransactions, partnerTransactions } from './partner-scope';
import { ResendReservations } from './resend-reservations';
import { RetryNowClaims } from './retry-now-claims';
import type { DeliveryLogDb } from './tables';

/**
 * `partnerId`: the partner whose retries these are, its claims and places taken in its scope; none
 * for the operator API's, which reads and writes any partner's as the store's own user.
 */
export function retryStore(db: DeliveryLogDb, perHour: number, partnerId?: string): RetryStore {
  const writes = partnerId === undefined ? ownerTransactions(db) : partnerTransactions(db, partnerId);
  // The resend's reservations: a retry now counts in the same hourly limit.
  const reservations = new ResendReservations(writes, perHour);
  const claims = new RetryNowClaims(writes);
  return {
    // A partner's retry reads in its scope (partner-scope.ts: row security); an operator's, any partner's.
    deliveryOf: (deliveryId, partnerId) =>
      partnerId === undefined
        ? deliveryOf(db, deliveryId)
        : inPartnerScope(db, partnerId, (scoped) => deliveryOf(scoped, deliveryId, partnerId)),
    claim: (deliveryId, attemptsBefore, now, expiresAt) => claims.claim(deliveryId, attemptsBefore, now, expiresAt),
    releaseClaim: (claimId) => claims.release(claimId),
    reserve: (partnerId, deliveryId, now) => reservations.reserve(partnerId, deliveryId, now),
    release: (reservationId) => reservations.release(reservationId),
  };
}

function deliveryOf(db: DeliveryLogDb, deliveryId: string, partnerId?: string) {
  let query = db
    .selectFrom('deliveries')
    .select([
      'delivery_id',
      'partner_id',
      'endpoint_id',
      'event_id',
      'policy_number',
      'policy_version',
      'policy_status',
      'body',
      'created_at',
      'state',
      'attempt_count',
    ])
    .where('delivery_id', '=', deliveryId)
    .where('test', '=', false);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  return query.executeTakeFirst();
}
