/* The store of a partner's retry of an endpoint's failing deliveries (domain/retry-failing-deliveries.ts) on the log's PostgreSQL database. */
import { sql } from 'kysely';
import type { FailingDeliveriesStore } from '../../domain/retry-failing-deliveries';
import { inPartnerScope, partnerTransactions } from './partner-scope';
import { ResendReservations } from './resend-reservations';
import type { DeliveryLogDb } from './tables';

/** `partnerId`: whose deliveries; every read runs in its scope (partner-scope.ts: row security). `perHour`: the resends' limit. */
export function failingDeliveriesStore(db: DeliveryLogDb, perHour: number, partnerId: string): FailingDeliveriesStore {
  // Read only: the places themselves are taken by each retry now (retry-store.ts), in the same hour.
  const reservations = new ResendReservations(partnerTransactions(db, partnerId), perHour);
  return {
    endpointKnown: (partnerId, endpointId) => inPartnerScope(db, partnerId, (scoped) => endpointKnown(scoped, partnerId, endpointId)),
    failingOf: (partnerId, endpointId, limit) =>
      inPartnerScope(db, partnerId, (scoped) =>
        scoped
          .selectFrom('deliveries')
          .select(['delivery_id', 'endpoint_id', 'policy_number', 'created_at'])
          .where('partner_id', '=', partnerId)
          .where('state', '=', 'failing')
          .where('endpoint_id', '=', endpointId)
          .where('test', '=', false)
          // Through deliveries_partner_state (partner_id, state, created_at desc), read backwards.
          .orderBy('created_at')
          .orderBy('delivery_id')
          .limit(limit)
          .execute(),
      ),
    resendsLeft: (partnerId, now) => reservations.left(partnerId, now),
  };
}

async function endpointKnown(db: DeliveryLogDb, partnerId: string, endpointId: string): Promise<boolean> {
  const { rows } = await sql<{ known: boolean }>`
    select exists (
      select 1 from partners p, jsonb_array_elements(p.endpoints) e
      where p.partner_id = ${partnerId} and e ->> 'endpoint_id' = ${endpointId}
    ) as known`.execute(db);
  return rows[0]?.known === true;
}
