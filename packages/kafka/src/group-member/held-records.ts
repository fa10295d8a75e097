/*
 * The records of a delay topic (a retry tier) held in memory until due: the part of the
 * concurrent mode (ConcurrentRecords) that pauses a partition while any of its records waits,
 * starts each once due, and resumes the partition when none is left.
 */
import { setImmediate } from 'node:timers/promises';
import type { EachBatchPayload, KafkaMessage, TopicPartitions } from '../types';
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import { RECORDS_PER_TURN } from './pacing';
import type { PartitionProgress } from './partition-progress';

/** The longest delay setTimeout takes as given (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;
/**
 * Records a partition holds before it is paused, and resumed again below half of it. A pause and
 * a resume each cost a round of the client's workers and a fetch restarted from scratch: pausing
 * at every fetch held a tier to about 7 records a second (a flaky partner's retries at 50/s fell
 * behind); the limit keeps what a dead partner's backlog puts in memory bounded all the same.
 */
export const MAX_HELD_PER_PARTITION = 500;

/** What the holder needs of its consumer. */
export interface HoldingConsumer {
  logger: Logger;
  partitionConcurrency: number;
  now: () => number;
  /** When a record of a delay topic may start (epoch ms). */
  dueAt: (topic: string, message: KafkaMessage) => number;
  pause: (partitions: TopicPartitions[]) => void;
  /** Resumes unless the consumer is stopping (then does nothing). */
  resume: (partitions: TopicPartitions[]) => void;
  /** Starts one record (its offset is in pending already when it was held). */
  begin: (progress: PartitionProgress, message: KafkaMessage) => void;
  /** False once the partition's progress is finished (stopping, rewound, or an older assignment's). */
  alive: (progress: PartitionProgress) => boolean;
  /** Partitions holding records until due (paused once they hold their limit), whenever that count changes. */
  onPausedPartitions?: (count: number) => void;
}

export class HeldRecords {
  private readonly resumeTimers = new Map<string, NodeJS.Timeout>();
  /** Partitions this holder paused (holding MAX_HELD_PER_PARTITION records or more). */
  private readonly paused = new Set<string>();

  constructor(private readonly consumer: HoldingConsumer) {}

  /**
   * A delay topic's batch: its records are held in memory, in offset order, and each is started
   * once due; once a partition holds MAX_HELD_PER_PARTITION it is paused, and it resumes when it
   * holds less than half of that.
   * A delay topic's due times follow its offsets (a retry tier's delay is fixed), so the records a
   * fetch brings come due one after another: each is read once. (Pausing at the first record not
   * yet due and seeking back to it re-read the partition from there at every resume: with a dead
   * partner's backlog coming due at 100 records a second, a 64 KB fetch decoded and discarded for
   * nearly every record.) Held records stay in `pending`, so the committed offset never passes
   * them: a crash or a rebalance re-reads them, and no record is ever started before it is due.
   */
  take(payload: EachBatchPayload, progress: PartitionProgress): void {
    const taken = payload.batch.messages.filter((m) => BigInt(m.offset) > progress.highestTaken);
    // Records already held or started, read again: read past them (they are in `pending`).
    if (taken.length === 0) return payload.resolveOffset(payload.batch.messages[payload.batch.messages.length - 1]!.offset);
    for (const message of taken) progress.pending.add(BigInt(message.offset));
    progress.held.push(...taken);
    progress.highestTaken = BigInt(taken[taken.length - 1]!.offset);
    // The fetch position moves past what is held; the committed offset stays below it (pending).
    payload.resolveOffset(taken[taken.length - 1]!.offset);
    // Paused at once when full, not only after the pass below: a pass may wait for a slot, and
    // meanwhile further fetches would pile the partition into memory.
    if (progress.held.length >= MAX_HELD_PER_PARTITION) this.pause(progress);
    // Not awaited: a pass may wait for a slot (backpressure), and the fetch loop must not wait with it.
    void this.pass(progress);
  }

  /** A rewound partition's held records are read again: their wait ends with its progress. */
  release(progress: PartitionProgress): void {
    const id = idOf(progress);
    // Its reader pauses and resumes it from now on (ConcurrentRecords.failed).
    this.paused.delete(id);
    clearTimeout(this.resumeTimers.get(id));
    if (this.resumeTimers.delete(id)) this.consumer.onPausedPartitions?.(this.resumeTimers.size);
  }

  /**
   * Per delay topic, when the earliest record held in `progresses` is due (epoch ms); a topic
   * holding none is absent. A partition's first held record is its earliest (due times follow
   * offsets), and one already due but not started yet (waiting for a slot) is still held: how far
   * `now` is past it is how late the topic is.
   */
  earliestDue(progresses: Iterable<PartitionProgress>): Map<string, number> {
    const earliest = new Map<string, number>();
    for (const progress of progresses) {
      const first = progress.held[0];
      if (first === undefined || !this.consumer.alive(progress)) continue;
      const dueAt = this.consumer.dueAt(progress.topic, first);
      earliest.set(progress.topic, Math.min(dueAt, earliest.get(progress.topic) ?? Infinity));
    }
    return earliest;
  }

  /** Forgets every wait (a rebalance, or stopping). */
  clear(): void {
    this.paused.clear();
    if (this.resumeTimers.size === 0) return; // the count is already 0
    for (const timer of this.resumeTimers.values()) clearTimeout(timer);
    this.resumeTimers.clear();
    this.consumer.onPausedPartitions?.(0);
  }

  /** Starts the held records now due, one pass at a time; then waits for the next, or resumes the partition. */
  private pass(progress: PartitionProgress): Promise<void> {
    const { consumer } = this;
    progress.drained = progress.drained.then(async () => {
      let startedThisTurn = 0;
      while (progress.held.length > 0 && consumer.alive(progress)) {
        const next = progress.held[0]!;
        if (consumer.dueAt(progress.topic, next) > consumer.now()) break;
        if (startedThisTurn === RECORDS_PER_TURN) {
          await setImmediate();
          startedThisTurn = 0;
          continue;
        }
        // Backpressure: at most partitionConcurrency of this partition's records in flight (held ones are not).
        if (progress.pending.size - progress.held.length >= consumer.partitionConcurrency) {
          await progress.slotFreed();
          continue;
        }
        progress.held.shift();
        consumer.begin(progress, next);
        startedThisTurn += 1;
      }
      if (consumer.alive(progress)) this.waitForFirst(progress);
    });
    // A pass cannot fail (begin() settles each record's own errors); the catch keeps the chain going regardless.
    progress.drained = progress.drained.catch((error: unknown) =>
      consumer.logger.error(
        { topic: progress.topic, partition: progress.partition, err: describeError(error) },
        'held records not started',
      ),
    );
    return progress.drained;
  }

  /** Waits for the first held record to be due; resumes the partition once it holds less than half its limit. */
  private waitForFirst(progress: PartitionProgress): void {
    const id = idOf(progress);
    clearTimeout(this.resumeTimers.get(id));
    this.resumeTimers.delete(id);
    if (progress.held.length < MAX_HELD_PER_PARTITION / 2) this.resume(progress);
    const first = progress.held[0];
    if (first === undefined) return this.consumer.onPausedPartitions?.(this.resumeTimers.size);
    const dueAt = this.consumer.dueAt(progress.topic, first);
    const timer = setTimeout(
      () => {
        this.resumeTimers.delete(id);
        void this.pass(progress);
      },
      // Node fires a longer timeout at once; the pass then finds it not due and waits again.
      Math.min(Math.max(0, dueAt - this.consumer.now()), MAX_TIMER_MS),
    );
    this.resumeTimers.set(id, timer);
    this.consumer.onPausedPartitions?.(this.resumeTimers.size);
  }

  private pause(progress: PartitionProgress): void {
    const id = idOf(progress);
    if (this.paused.has(id)) return;
    this.paused.add(id);
    this.consumer.pause([{ topic: progress.topic, partitions: [progress.partition] }]);
  }

  private resume(progress: PartitionProgress): void {
    if (!this.paused.delete(idOf(progress))) return;
    this.consumer.resume([{ topic: progress.topic, partitions: [progress.partition] }]);
  }
}

function idOf(progress: PartitionProgress): string {
  return `${progress.topic}/${progress.partition}`;
}
