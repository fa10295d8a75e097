/* Where a retrieval that may pass goes after a failed attempt: the next document retry tier, or the dead letters. */

/** The next tier of a failed retrieval, or null when every tier was used. */
export interface NextTier {
  tier: number;
  /** When it may be attempted again (epoch ms): its write time plus its tier's fixed delay. */
  dueAt: number;
}

/**
 * After failed attempt number `attempt` (1-based): tier `attempt` while tiers remain, else null
 * (dead letter). Each tier has one fixed delay, so a tier partition's records come due in the
 * order they sit in it (the shared ConcurrentConsumer holds a partition at its first record not due).
 */
export function nextTierAfter(attempt: number, delaysMs: readonly number[], now: number): NextTier | null {
  const delay = delaysMs[attempt - 1];
  return delay === undefined ? null : { tier: attempt, dueAt: now + delay };
}

/** How long the whole retry schedule lasts: the tiers' delays added up. */
export function retryScheduleMs(delaysMs: readonly number[]): number {
  return delaysMs.reduce((sum, delay) => sum + delay, 0);
}
