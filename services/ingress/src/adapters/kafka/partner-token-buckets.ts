/** How many tokens a partner's bucket holds at most, and how fast it fills again. */
export interface TokenBucketLimits {
  burst: number;
  perSecond: number;
}

/**
 * A token bucket per partner: up to `burst` takes at once, then `perSecond` on average. Time is
 * read from a monotonic clock, so a wall clock set back takes no tokens away. One entry per
 * partner that ever took a token: partners are bounded by onboarding, and only an authenticated
 * partner gets here, so the map needs no eviction.
 */
export class PartnerTokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(
    private readonly limits: TokenBucketLimits,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    if (!(limits.burst >= 1 && limits.perSecond > 0))
      throw new RangeError(`a bucket needs burst >= 1 and perSecond > 0, got ${JSON.stringify(limits)}`);
  }

  /** Takes one token of the partner's bucket; false (and nothing taken) when it holds less than one. */
  take(partnerId: string): boolean {
    const now = this.nowMs();
    const bucket = this.buckets.get(partnerId);
    const refilled = bucket ? bucket.tokens + (Math.max(0, now - bucket.atMs) / 1000) * this.limits.perSecond : this.limits.burst;
    const tokens = Math.min(this.limits.burst, refilled);
    const taken = tokens >= 1;
    this.buckets.set(partnerId, { tokens: taken ? tokens - 1 : tokens, atMs: now });
    return taken;
  }
}
