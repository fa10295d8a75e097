/*
 * How a partner's endpoints are doing (adapters/store/queries/endpoint-health.ts): for the partner
 * itself, in its own scope; for an operator, of a partner the log knows, else 404.
 */
import { NotFoundError } from '@hookstream/errors';
import type { DeliveryLogDb } from '../adapters/store/tables';
import { endpointHealth } from '../adapters/store/queries/endpoint-health';
import { partnerKnown } from '../adapters/store/queries/partner-queries';

export async function partnerEndpointHealth(db: DeliveryLogDb, partnerId: string | undefined) {
  if (!partnerId || !(await partnerKnown(db, partnerId))) throw new NotFoundError('partner', 'no partner with that id');
  return endpointHealth(db, partnerId);
}

/** The partner's own endpoints (the partner API: the caller is the partner, so it is known). */
export function ownEndpointHealth(db: DeliveryLogDb, partnerId: string) {
  return endpointHealth(db, partnerId);
}
