/*
 * What every change a partner makes to its own configuration (its endpoints, its signing secret)
 * goes through, whatever the change:
 * 1. the caller holds the API key: a portal link, given out for a day to look and resend, could
 *    otherwise send future callbacks (policy data) to a URL of an attacker's, or take the secret
 *    that proves them genuine (docs/security.md);
 * 2. a place under the partner's limit for that kind of change, given back if the change is not made;
 * 3. the change itself, refused while an operator has turned the partner's self-service off
 *    (PartnerChanges.selfService), audited with the partner as the actor.
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import { partnerOperator } from './resend-delivery';

export interface SelfServiceLimit {
  kind: 'endpoints' | 'signing-secret' | 'notifications';
  /** Changes of the kind one partner may make within windowMs. */
  count: number;
  windowMs: number;
}

export type SelfServicePlace = { reserved: true; changeId: string } | { reserved: false; retryAfterSeconds: number };

/** The limits' store (adapters/store/self-service-limits.ts implements it). */
export interface SelfServicePlaces {
  reserve(partnerId: string, limit: SelfServiceLimit, now: Date): Promise<SelfServicePlace>;
  release(changeId: string): Promise<void>;
}

/** How a refusal names the changes a limit counts. */
const CHANGES_OF: Record<SelfServiceLimit['kind'], string> = {
  endpoints: 'endpoint changes',
  'signing-secret': 'signing-secret rotations',
  notifications: 'notification subscription changes',
};

/** The partner as the audit names it when it changes itself. */
export function partnerActor(partnerId: string) {
  return { type: 'partner' as const, id: partnerId, name: partnerOperator(partnerId) };
}

/** 403 unless the caller holds the API key (or a console session opened with it). */
export function refuseUnlessKeyHolderMay(holds: 'api_key' | 'portal_link', what: string): void {
  if (holds !== 'api_key') {
    throw new Refusal(
      ErrorCodes.FORBIDDEN,
      `a portal link cannot ${what}: use the API key (x-api-key, or sign in to the console with it), or ask an operator`,
    );
  }
}

/**
 * Runs `change` in a place under `limit` (429 with Retry-After past it); the place is given back when
 * the change throws, unless the change called `spend` first: a URL the SSRF guard refused keeps its
 * place, so that probing which names resolve where costs the prober its hourly changes.
 */
export async function withinLimit<T>(
  places: SelfServicePlaces,
  partnerId: string,
  limit: SelfServiceLimit,
  change: (spend: () => void) => Promise<T>,
): Promise<T> {
  const place = await places.reserve(partnerId, limit, new Date());
  if (!place.reserved) {
    throw new Refusal(
      ErrorCodes.TOO_MANY_REQUESTS,
      `this partner made ${limit.count} ${CHANGES_OF[limit.kind]} in the last ${limit.windowMs / 3_600_000} h: retry in ${place.retryAfterSeconds} s`,
      { retryAfterSeconds: place.retryAfterSeconds },
    );
  }
  let spent = false;
  try {
    return await change(() => {
      spent = true;
    });
  } catch (error) {
    if (!spent) await places.release(place.changeId).catch(() => undefined);
    throw error;
  }
}
