/*
 * Which retry tier a failed attempt goes to, and when it is due: one schedule for callbacks and
 * documents. Each tier has one fixed delay, so a tier partition's records come due in the order
 * they sit in it (the GroupMember holds a partition at its first record not yet due).
 */

/** Where a record goes after a failed attempt: a retry tier (due at dueAt), or the dead-letter topic. */
export type NextTier = { kind: 'retry'; tier: number; dueAt: number } | { kind: 'dead-letter' };

/** How long the whole retry schedule lasts: the tiers' delays added up. */
export function retryScheduleMs(delaysMs: readonly number[]): number {
  return delaysMs.reduce((sum, delay) => sum + delay, 0);
}

/**
 * The tier for a record that must wait at least `waitMs`: the first from `fromTier` on whose
 * delay is that long, else the longest from there. The record's due time is then always its
 * write time plus its tier's fixed delay. A due time of its own (a partner's Retry-After, a random
 * spread) would break the tier's order: the consumer stops a tier partition at its first record not
 * yet due, so a record due in an hour at its head would hold back every record behind it for an hour.
 */
export function tierAtLeast(waitMs: number, fromTier: number, delaysMs: readonly number[]): number {
  let longest = fromTier;
  for (let tier = fromTier; tier <= delaysMs.length; tier++) {
    if (delaysMs[tier - 1]! >= waitMs) return tier;
    if (delaysMs[tier - 1]! > delaysMs[longest - 1]!) longest = tier;
  }
  return longest;
}

/**
 * Where a record goes after its failed attempt number `attempt` (1-based): retry tier `attempt`
 * after that tier's delay while tiers remain (spec 8: up to 8 retries, exponential backoff), else
 * the dead-letter topic. A retry that must wait longer (`atLeastMs`: a partner's Retry-After) goes
 * to the first later tier whose delay covers it (tierAtLeast).
 */
export function nextTierAfterFailure(attempt: number, delaysMs: readonly number[], now: number, atLeastMs = 0): NextTier {
  if (attempt > delaysMs.length) return { kind: 'dead-letter' };
  const tier = tierAtLeast(atLeastMs, attempt, delaysMs);
  return { kind: 'retry', tier, dueAt: now + delaysMs[tier - 1]! };
}
