/* Endpoint health (domain/endpoint-health.ts EndpointHealthStore) on the log's database. */
import type { EndpointHealthStore } from '../../domain/endpoint-health';
import { endpointHealth } from './queries/endpoint-health';
import { partnerKnown } from './queries/partner-queries';
import type { DeliveryLogDb } from './tables';

/** On `db`: the partner API passes its scoped connection (the partner's own rows only). */
export function endpointHealthStore(db: DeliveryLogDb): EndpointHealthStore {
  return { partnerKnown: (partnerId) => partnerKnown(db, partnerId), endpointHealth: (partnerId) => endpointHealth(db, partnerId) };
}
