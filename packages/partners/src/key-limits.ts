import { ErrorCodes, HookstreamError } from '@hookstream/errors';
import type { InboundApiKey } from './model';

/**
 * The bounds of a partner's inbound API keys, so that nothing a partner (or a careless script)
 * does grows its partner-config record without end: every write drops what no longer works, and
 * no change may leave more keys working than the limit.
 *
 * The ceiling they give: at most MAX_KEYS_IN_RECORD keys in a record, about 150 bytes each in
 * Avro (3 KB), far below Kafka's 1 MiB record limit, so an operator's disable or revoke of a
 * partner is always writable.
 */
export const KEY_LIMITS = {
  /** Keys that work at once (neither revoked nor expired): rotating with an overlap keeps the old ones working. */
  live: 10,
  /** A key that no longer works stays in the record this long after it was issued, so that the day's rotations can be counted. */
  keptAfterIssueMs: 24 * 3_600_000,
  /** Keys in a record, working or not: past it the oldest that no longer work are dropped first. */
  inRecord: 20,
  /**
   * A partner may rotate its own key (the partner API) only while fewer keys than this were issued
   * for it in the last 24 hours, by anyone; an operator's rotations are not limited (a leaked key
   * must always be replaceable), only counted.
   */
  partnerIssuesPerDay: 5,
} as const;

/** A change refused for what the partner is now (the CLI exits 2; the APIs answer 409, 403 when not the partner's to make, or 429 with Retry-After). */
export class PartnerChangeRefused extends HookstreamError {
  constructor(
    readonly kind: 'conflict' | 'rate_limited' | 'forbidden',
    message: string,
    /** When the change may be made again (rate_limited only). */
    readonly retryAfterSeconds?: number,
  ) {
    super(ErrorCodes.PARTNER_CHANGE_REFUSED, message);
  }
}

export function isLive(key: InboundApiKey, now: number): boolean {
  return (key.revoked_at === null || key.revoked_at > now) && (key.expires_at === null || key.expires_at > now);
}

/** The keys a record keeps: every live one, and those that no longer work while issued within the last day, at most KEY_LIMITS.inRecord. */
export function keptKeys(keys: readonly InboundApiKey[], now: number): InboundApiKey[] {
  const recent = (k: InboundApiKey) => k.created_at > now - KEY_LIMITS.keptAfterIssueMs;
  const kept = keys.filter((k) => isLive(k, now) || recent(k));
  const dead = kept.filter((k) => !isLive(k, now)).sort((a, b) => a.created_at - b.created_at);
  const drop = new Set(dead.slice(0, Math.max(0, kept.length - KEY_LIMITS.inRecord)));
  return kept.filter((k) => !drop.has(k));
}

/** Refuses a change that would leave more than KEY_LIMITS.live keys working. */
export function refuseTooManyLiveKeys(keys: readonly InboundApiKey[], now: number): void {
  const live = keys.filter((k) => isLive(k, now)).length;
  if (live > KEY_LIMITS.live) {
    throw new PartnerChangeRefused(
      'conflict',
      `a partner holds at most ${KEY_LIMITS.live} working API keys and this would make ${live}: revoke one first, or rotate with no overlap`,
    );
  }
}

/** Refuses a partner's own rotation once KEY_LIMITS.partnerIssuesPerDay keys were issued in 24 hours, saying when the next is allowed. */
export function refusePartnerIssueBeyondDaily(keys: readonly InboundApiKey[], now: number): void {
  const windowStart = now - KEY_LIMITS.keptAfterIssueMs;
  const issued = keys
    .map((k) => k.created_at)
    .filter((at) => at > windowStart)
    .sort((a, b) => b - a);
  const limiting = issued[KEY_LIMITS.partnerIssuesPerDay - 1];
  if (limiting !== undefined) {
    const retryAfterSeconds = Math.max(1, Math.ceil((limiting + KEY_LIMITS.keptAfterIssueMs - now) / 1000));
    throw new PartnerChangeRefused(
      'rate_limited',
      `${KEY_LIMITS.partnerIssuesPerDay} API keys were issued for this partner in the last 24 hours: it may rotate its key again in ${retryAfterSeconds} s (an operator can rotate it now)`,
      retryAfterSeconds,
    );
  }
}
