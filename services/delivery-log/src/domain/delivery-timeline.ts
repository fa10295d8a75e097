/*
 * A delivery's timeline: every step it went through, in the order they followed one another, with
 * the time since the step before. The steps come from the delivery's rows (docs/console.md):
 * published (the policy-status record's timestamp), fanned_out (its request's created_at), and per
 * outcome the send (recorded_at less latency_ms) and its answer (recorded_at), the wait in a retry
 * tier (up to the due time the failure set), a dead-lettering, a superseded or skipped one; a retry
 * now (its request's record time) and a replay (its replays row) come in where they happened.
 *
 * The times come from different machines (the core system, the fan-out, the sender): a step may
 * seem to come before the one it follows. Its gap is then shown as 0 and flagged, never negative.
 */

/** Every step a timeline can have, in the domain's words. */
export const TIMELINE_STEP_NAMES = [
  'published',
  'fanned_out',
  'attempt_sent',
  'attempt_answered',
  'waited_in_tier',
  'circuit_open',
  'delivered',
  'dead_lettered',
  'superseded',
  'already_delivered',
  'retried_now',
  'replayed',
] as const;
export type TimelineStepName = (typeof TIMELINE_STEP_NAMES)[number];

export interface TimelineStep {
  name: TimelineStepName;
  at: Date;
  /** Milliseconds since the step before; null for the first step. */
  ms: number | null;
  /** The attempt it belongs to (the outcome's attempt number); null for steps of no attempt. */
  attempt: number | null;
  /** The retry tier the attempt was read from (for waited_in_tier: the one it waited in); null otherwise. */
  tier: number | null;
  /** Its time is before the step before's by another machine's clock: `ms` shows 0. */
  clocks_disagree: boolean;
}

/** One outcome of the delivery, as the log keeps it (delivery_attempts). */
export interface TimelineAttempt {
  attempt: number;
  tier: number;
  outcome: string;
  latency_ms: number | null;
  recorded_at: Date;
  trigger: string | null;
  next_attempt_at: Date | null;
}

export interface TimelineSources {
  /** When the core system published the event; null when not known (older rows, a request not made by the fan-out). */
  publishedAt: Date | null;
  /** When the fan-out made the request; null while the log has not read it. */
  fannedOutAt: Date | null;
  /** Its outcomes in the order they were recorded. */
  attempts: readonly TimelineAttempt[];
  /** When it was re-queued from the dead letters (replays that did re-queue it). */
  replayedAt: readonly Date[];
  /** When a retry now of it was asked for. */
  retriedNowAt: readonly Date[];
}

type Step = Omit<TimelineStep, 'ms' | 'clocks_disagree'>;

const stepOf = (name: TimelineStepName, at: Date, attempt: number | null = null, tier: number | null = null): Step => ({
  name,
  at,
  attempt,
  tier,
});

/** The steps of `sources`, in the order they followed one another. */
export function deliveryTimeline(sources: TimelineSources): TimelineStep[] {
  const steps: Step[] = [];
  if (sources.publishedAt) steps.push(stepOf('published', sources.publishedAt));
  if (sources.fannedOutAt) steps.push(stepOf('fanned_out', sources.fannedOutAt));
  // A retry now or a replay goes in before the first outcome that came after it was asked for.
  const asked = [
    ...sources.retriedNowAt.map((at) => stepOf('retried_now', at)),
    ...sources.replayedAt.map((at) => stepOf('replayed', at)),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
  let dueAt: Date | null = null;
  for (const attempt of sources.attempts) {
    const own = outcomeSteps(attempt, dueAt);
    while (asked.length > 0 && asked[0]!.at <= own.startedAt) steps.push(asked.shift()!);
    steps.push(...own.steps);
    if (own.consumedWait || attempt.trigger === null) dueAt = null;
    // A scheduled failure waits in a tier until its due time; a retry now's failure leaves the scheduled wait as it was.
    if (attempt.trigger === null && attempt.next_attempt_at !== null) dueAt = attempt.next_attempt_at;
  }
  steps.push(...asked);
  return withGaps(steps);
}

/** From the first step to the first delivery, in ms (0 where clocks disagree); null until delivered. */
export function timeToDeliver(steps: readonly TimelineStep[]): number | null {
  const delivered = steps.find((step) => step.name === 'delivered');
  const first = steps[0];
  if (!delivered || !first) return null;
  return Math.max(0, delivered.at.getTime() - first.at.getTime());
}

/** The steps of one outcome, from the wait before it (a tier's record read after `dueAt`) to its answer. */
function outcomeSteps(a: TimelineAttempt, dueAt: Date | null): { steps: Step[]; startedAt: Date; consumedWait: boolean } {
  const steps: Step[] = [];
  // Read from a tier (not a retry now, a test or a first send): it waited there until due.
  const fromTier = a.trigger === null && a.tier > 0 && dueAt !== null;
  if (fromTier) steps.push(stepOf('waited_in_tier', dueAt, null, a.tier));
  const sentAt = a.latency_ms === null ? null : new Date(a.recorded_at.getTime() - Math.round(a.latency_ms));
  if (sentAt) steps.push(stepOf('attempt_sent', sentAt, a.attempt, a.tier));
  steps.push(stepOf(answerOf(a.outcome), a.recorded_at, a.attempt, a.tier));
  return { steps, startedAt: fromTier ? dueAt : (sentAt ?? a.recorded_at), consumedWait: fromTier };
}

function answerOf(outcome: string): TimelineStepName {
  switch (outcome) {
    case 'DELIVERED':
      return 'delivered';
    case 'DEAD_LETTERED':
      return 'dead_lettered';
    case 'SUPERSEDED':
      return 'superseded';
    case 'ALREADY_DELIVERED':
      return 'already_delivered';
    case 'SKIPPED_CIRCUIT_OPEN':
      return 'circuit_open';
    default:
      return 'attempt_answered';
  }
}

function withGaps(steps: readonly Step[]): TimelineStep[] {
  return steps.map((step, i) => {
    const before = steps[i - 1];
    if (!before) return { ...step, ms: null, clocks_disagree: false };
    const gap = step.at.getTime() - before.at.getTime();
    return { ...step, ms: Math.max(0, gap), clocks_disagree: gap < 0 };
  });
}
