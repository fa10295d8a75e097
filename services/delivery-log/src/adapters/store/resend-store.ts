/* The resend's store (domain/resend-delivery.ts ResendStore) on the log's PostgreSQL database. */
import type { ResendStore } from '../../domain/resend-delivery';
import { callbackDeadLettersOf, deliveryStateOf } from './queries/resend-queries';
import { emittedVersions } from './queries/recovery-queries';
import { inPartnerScope, partnerTransactions } from './partner-scope';
import { ResendReservations } from './resend-reservations';
import type { DeliveryLogDb } from './tables';

/** `partnerId`: the partner whose resends these are; its places are counted and written in its scope. */
export function resendStore(db: DeliveryLogDb, perHour: number, partnerId: string): ResendStore {
  const reservations = new ResendReservations(partnerTransactions(db, partnerId), perHour);
  return {
    deliveryStateOf: (partnerId, deliveryId) => deliveryStateOf(db, partnerId, deliveryId),
    callbackDeadLettersOf: (partnerId, deliveryId) => callbackDeadLettersOf(db, partnerId, deliveryId),
    reserve: (partnerId, deliveryId, now) => reservations.reserve(partnerId, deliveryId, now),
    release: (reservationId) => reservations.release(reservationId),
    emittedVersions: (partnerId, policies) => inPartnerScope(db, partnerId, (scoped) => emittedVersions(scoped, partnerId, policies)),
  };
}
