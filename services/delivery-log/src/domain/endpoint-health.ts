/*
 * How a partner's endpoints are doing, for an operator: of a partner the log knows, else 404 (the
 * partner's own, with their configuration: manage-own-endpoints.ts).
 */
import { NotFoundError } from '@hookstream/errors';
import type { PartnerHealth } from '../adapters/store/queries/endpoint-health';

/** What endpoint health needs of the log's store (adapters/store/queries/endpoint-health.ts implements it). */
export interface EndpointHealthStore {
  partnerKnown(partnerId: string): Promise<boolean>;
  endpointHealth(partnerId: string): Promise<PartnerHealth>;
}

export async function partnerEndpointHealth(store: EndpointHealthStore, partnerId: string | undefined): Promise<PartnerHealth> {
  if (!partnerId || !(await store.partnerKnown(partnerId))) throw new NotFoundError('partner', 'no partner with that id');
  return store.endpointHealth(partnerId);
}
