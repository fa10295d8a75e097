/* A retry now's store (domain/retry-delivery.ts RetryStore) on the log's PostgreSQL database: the delivery's row and the resends' reservations. */
import type { RetryStore } from '../../domain/retry-delivery';
import { inPartnerScope } from './partner-scope';
import { ResendReservations } from './resend-reservations';
import type { DeliveryLogDb } from './tables';

export function retryStore(db: DeliveryLogDb, perHour: number): RetryStore {
  // The resend's reservations: a retry now counts in the same hourly limit.
  const reservations = new ResendReservations(db, perHour);
  return {
    // A partner's retry reads in its scope (partner-scope.ts: row security); an operator's, any partner's.
    deliveryOf: (deliveryId, partnerId) =>
      partnerId === undefined
        ? deliveryOf(db, deliveryId)
        : inPartnerScope(db, partnerId, (scoped) => deliveryOf(scoped, deliveryId, partnerId)),
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
