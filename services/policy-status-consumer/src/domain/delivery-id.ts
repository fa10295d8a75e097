import { createHash } from 'node:crypto';

/**
 * The delivery id of one callback: a UUID derived (SHA-256, formatted as an RFC 9562 version 8
 * UUID) from the event id and the endpoint, so every re-emission of the same event to the same
 * endpoint (a consumer restart, a replay) carries the same id and partners can deduplicate on it.
 */
export function deliveryIdFor(eventId: string, partnerId: string, endpointId: string): string {
  const hash = createHash('sha256').update(`hookstream-delivery\n${eventId}\n${partnerId}\n${endpointId}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x80; // version 8: custom
  hash[8] = (hash[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
