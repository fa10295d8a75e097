/* A partner's recovery's store (domain/recover-dead-letters.ts RecoveryStore) on the log's PostgreSQL database. */
import type { RecoveryStore } from '../../domain/recover-dead-letters';
import { emittedVersions, endpointKnown, waitingSince } from './queries/recovery-queries';
import { inPartnerScope, partnerTransactions } from './partner-scope';
import { ResendReservations } from './resend-reservations';
import type { DeliveryLogDb } from './tables';

/**
 * `partnerId`: the partner recovering, in whose scope its places are counted and written; `perHour` is
 * the resends' limit: a recovery's resends take places of the same hour as single resends.
 */
export function recoveryStore(db: DeliveryLogDb, perHour: number, partnerId: string): RecoveryStore {
  const reservations = new ResendReservations(partnerTransactions(db, partnerId), perHour);
  return {
    // The reads run in the partner's scope too, as the partner API's other reads (partner-scope.ts).
    endpointKnown: (partnerId, endpointId) => inPartnerScope(db, partnerId, (scoped) => endpointKnown(scoped, partnerId, endpointId)),
    waitingSince: (partnerId, window, endpointId, limit) =>
      inPartnerScope(db, partnerId, (scoped) => waitingSince(scoped, partnerId, window, endpointId, limit)),
    resendsLeft: (partnerId, now) => reservations.left(partnerId, now),
    reserve: (partnerId, deliveryId, now) => reservations.reserve(partnerId, deliveryId, now),
    release: (reservationId) => reservations.release(reservationId),
    emittedVersions: (partnerId, policies) => inPartnerScope(db, partnerId, (scoped) => emittedVersions(scoped, partnerId, policies)),
  };
}
