import { coordinatesOf, type DeadLetter } from '../read/dead-letter';

/** What a replay run decides for one selected dead letter (the audit record's `outcome`). */
export type ReplayOutcome = 'replayed' | 'skipped-superseded' | 'skipped-already-replayed' | 'skipped-replay-limit' | 'failed';

export interface ReplayDecision {
  letter: DeadLetter;
  /** 'replayed' here means: to be re-queued. */
  outcome: ReplayOutcome;
  /** Why it is skipped or fails, in words; empty when it is replayed. */
  detail: string;
  /** Replays of its delivery (or event) once this run is done with it: one more when replayed. */
  replayCount: number;
}

/** What the plan needs to know beyond the dead letters themselves (adapters answer it). */
export interface ReplayFacts {
  /** Whether an audit record says this very dead letter (its coordinates) was replayed. */
  alreadyReplayed: (letter: DeadLetter) => boolean;
  /** Replays of this letter's delivery (or event) recorded in the audit, whatever its coordinates then. */
  auditedReplays: (letter: DeadLetter) => number;
  /**
   * The newer policy version emitted for the letter's endpoint, when latest-wins ordering makes it
   * superseded (undefined otherwise, and for topics where ordering does not apply).
   */
  newerVersion: (letter: DeadLetter) => number | undefined;
}

export interface ReplayRules {
  /** DLQ_MAX_REPLAYS: a delivery replayed this many times is not replayed again without --force. */
  maxReplays: number;
  /** --force: replay what was already replayed or reached the limit. */
  force: boolean;
}

/**
 * Decides, for each selected dead letter, in this order:
 * 1. it cannot be re-queued (undecodable, or the original is not carried) → failed;
 * 2. a newer version of its policy was emitted for its endpoint → skipped-superseded (even with
 *    --force: the sender would not send it either, spec 7.2);
 * 3. this dead letter was replayed already → skipped-already-replayed, unless --force;
 * 4. its delivery has been replayed DLQ_MAX_REPLAYS times → skipped-replay-limit, unless --force;
 * 5. otherwise → replayed, its replay count one more.
 * The count of replays so far is the larger of what the record carries (the sender keeps the
 * header of a replayed delivery) and what the audit holds for its delivery.
 */
export function planReplay(letters: readonly DeadLetter[], facts: ReplayFacts, rules: ReplayRules): ReplayDecision[] {
  return letters.map((letter) => {
    const replaysSoFar = Math.max(letter.replayCount, facts.auditedReplays(letter));
    const decision = (outcome: ReplayOutcome, detail: string): ReplayDecision => ({ letter, outcome, detail, replayCount: replaysSoFar });
    if (letter.unreplayable !== null) return decision('failed', letter.unreplayable);
    const newer = facts.newerVersion(letter);
    if (newer !== undefined) {
      return decision('skipped-superseded', `a newer version (${newer}) of policy ${letter.policyNumber} was emitted for its endpoint`);
    }
    if (!rules.force && facts.alreadyReplayed(letter)) {
      return decision(
        'skipped-already-replayed',
        `${letter.source} ${coordinatesOf(letter)} was replayed before (--force replays it again)`,
      );
    }
    if (!rules.force && replaysSoFar >= rules.maxReplays) {
      return decision(
        'skipped-replay-limit',
        `replayed ${replaysSoFar} times already, the limit (DLQ_MAX_REPLAYS) is ${rules.maxReplays} (--force replays it anyway)`,
      );
    }
    return { letter, outcome: 'replayed', detail: '', replayCount: replaysSoFar + 1 };
  });
}

/** Decisions counted by outcome, every outcome present. */
export function countOutcomes(decisions: readonly Pick<ReplayDecision, 'outcome'>[]): Record<ReplayOutcome, number> {
  const counts: Record<ReplayOutcome, number> = {
    replayed: 0,
    'skipped-superseded': 0,
    'skipped-already-replayed': 0,
    'skipped-replay-limit': 0,
    failed: 0,
  };
  for (const d of decisions) counts[d.outcome]++;
  return counts;
}
