/*
 * A partner rotates its own API key through the partner API: the same rotation an operator makes
 * (PartnerChanges.rotateKey, audited), with the partner as the actor and the service's overlap for
 * the keys it replaces. Only with the API key itself: a portal link is given out for a day to see
 * and resend, and a key it minted would outlive it and every revocation of it.
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { PartnerChanges } from '@hookstream/partners';
import { partnerOperator } from './resend-delivery';

/** 403 unless the caller holds the API key (or a console session opened with it). */
export function refuseUnlessKeyHolder(holds: 'api_key' | 'portal_link'): void {
  if (holds !== 'api_key') {
    throw new Refusal(
      ErrorCodes.FORBIDDEN,
      'a portal link cannot rotate the API key: use the current API key (x-api-key, or sign in to the console with it), or ask an operator',
    );
  }
}

export function rotateOwnKey(changes: PartnerChanges, partnerId: string, reason: string, overlapHours: number) {
  const actor = { type: 'partner' as const, id: partnerId, name: partnerOperator(partnerId) };
  return changes.rotateKey(partnerId, actor, reason, {
    // Whole milliseconds, as the operator API's and the CLI's: a fraction of one is no Avro long.
    overlapMs: Math.round(overlapHours * 3_600_000),
  });
}
