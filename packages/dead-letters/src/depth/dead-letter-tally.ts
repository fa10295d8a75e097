/*
 * How many dead letters a dead-letter topic holds, and how many of them no replay has delivered
 * again: counted from the records themselves and from dlq-replay-audit, not from offsets, because
 * a topic written in transactions (policy-status-dlq is) also holds commit markers at offsets of
 * their own.
 */

/** What one dlq-replay-audit record says, as far as counting goes. */
export interface ReplayAuditFacts {
  sourceTopic: string;
  partition: number;
  offset: number;
  /**
   * A real (not dry-run) replay settled it: re-queued it ("replayed"), or found it superseded
   * ("skipped-superseded": a newer status reached the partner, so it must never be sent). Either
   * way no person needs to act on it any more.
   */
  settled: boolean;
}

/**
 * The facts of a decoded dlq-replay-audit value, old or new schema alike: records written before
 * `source_topic` and `outcome` existed replayed a callback-dlq record (the schema's defaults).
 * A dry run never counts, whatever it says.
 */
export function replayAuditFacts(value: Record<string, unknown>): ReplayAuditFacts {
  const text = (field: string, fallback: string) => {
    const found = value[field];
    return typeof found === 'string' ? found : fallback;
  };
  return {
    sourceTopic: text('source_topic', 'callback-dlq'),
    partition: Number(value.source_partition),
    offset: Number(value.source_offset),
    settled: value.dry_run !== true && SETTLING_OUTCOMES.has(text('outcome', 'replayed')),
  };
}

/** The replay outcomes after which a dead letter waits for nobody. */
const SETTLING_OUTCOMES = new Set(['replayed', 'skipped-superseded']);

export class DeadLetterTally {
  /** Per partition, the offsets of the dead letters held, ascending (records are added in offset order). */
  private readonly held = new Map<number, Set<number>>();
  /** Per partition, the offsets audited as settled (some may be gone already, or not read yet). */
  private readonly settled = new Map<number, Set<number>>();

  /** A dead letter read from the topic. */
  add(partition: number, offset: number): void {
    setOf(this.held, partition).add(offset);
  }

  /** An audit record: only settling ones count, each dead letter once however often replayed. */
  audit(facts: ReplayAuditFacts): void {
    if (facts.settled) setOf(this.settled, facts.partition).add(facts.offset);
  }

  /** Retention deleted the partition's records below `low`. */
  dropBelow(partition: number, low: number): void {
    const offsets = this.held.get(partition);
    if (!offsets) return;
    // Insertion order is offset order: stop at the first one kept.
    for (const offset of offsets) {
      if (offset >= low) break;
      offsets.delete(offset);
    }
  }

  /** Dead letters held. */
  get depth(): number {
    let count = 0;
    for (const offsets of this.held.values()) count += offsets.size;
    return count;
  }

  /** Dead letters held that no replay has settled (re-queued, or found superseded). */
  get unreplayed(): number {
    let settledHeld = 0;
    for (const [partition, offsets] of this.settled) {
      const held = this.held.get(partition);
      if (held) for (const offset of offsets) if (held.has(offset)) settledHeld += 1;
    }
    return this.depth - settledHeld;
  }
}

function setOf(map: Map<number, Set<number>>, partition: number): Set<number> {
  let set = map.get(partition);
  if (!set) {
    set = new Set();
    map.set(partition, set);
  }
  return set;
}
