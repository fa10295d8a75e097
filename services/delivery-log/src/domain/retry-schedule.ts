/*
 * What is left of a failing delivery's retry schedule, from its attempts and the sender's tiers
 * (CALLBACK_RETRY_DELAYS_MS, one delay per tier; the sender's nextTierAfterFailure): the next
 * attempt is due when its latest tier decision says (next_attempt_at), and after it each retry waits
 * its tier's delay, up to the last tier. A partner's Retry-After may send a retry to a later tier,
 * so the schedule is what is left at most, and ends_at the earliest the last retry can be due.
 */
export interface ScheduledAttempt {
  attempt: number;
  outcome: string;
  trigger: string | null;
  next_attempt_at: Date | null;
}

export interface RetrySchedule {
  next_attempt_at: Date;
  next_attempt: number;
  retries_left: number;
  later_delays_ms: number[];
  ends_at: Date;
}

export function retryScheduleOf(
  delivery: { state: string; next_attempt_at: Date | null; attempts: readonly ScheduledAttempt[] },
  delaysMs: readonly number[],
): RetrySchedule | null {
  if (delivery.state !== 'failing' || delivery.next_attempt_at === null) return null;
  // The latest decision of the schedule itself: a retry now's attempt has a number but no tier.
  const decision = delivery.attempts.findLast((a) => a.trigger === null && a.next_attempt_at !== null);
  if (!decision) return null;
  // A failure's retry is the next attempt; a skip (circuit open) made none, so its number is still to come.
  const next = decision.outcome === 'SKIPPED_CIRCUIT_OPEN' ? decision.attempt : decision.attempt + 1;
  // Attempt n + 1 comes from tier n: after the next, tiers `next` to the last are left.
  const later = delaysMs.slice(Math.max(0, next - 1));
  const nextAt = delivery.next_attempt_at;
  return {
    next_attempt_at: nextAt,
    next_attempt: next,
    retries_left: later.length + 1,
    later_delays_ms: later,
    ends_at: new Date(nextAt.getTime() + later.reduce((sum, d) => sum + d, 0)),
  };
}
