import type { CallbackEndpoint } from './model';

/**
 * Whether a callback endpoint subscribes to a policy-status event (spec 6): its `statuses` and
 * `product_codes` filters, empty meaning everything; a product filter refuses an event without a
 * product code; a disabled endpoint wants nothing. The policy-status-consumer fans out by it;
 * `hookstream dlq show` says by it which endpoints a replayed event would reach.
 */
export function endpointWants(endpoint: CallbackEndpoint, status: string, productCode: string | null | undefined): boolean {
  if (endpoint.disabled === true) return false;
  if (endpoint.statuses.length > 0 && !endpoint.statuses.includes(status)) return false;
  if (endpoint.product_codes.length > 0 && (!productCode || !endpoint.product_codes.includes(productCode))) return false;
  return true;
}
