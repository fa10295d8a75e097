/*
 * A consumer-group member that hands each record to `handle` concurrently (across partitions, and
 * within a partition across keys) and commits only what is durably done: the Kafka machinery of
 * any service that reads records, does something for each, and writes what became of it.
 */
import { setImmediate } from 'node:timers/promises';
import type { Consumer, EachBatchPayload, KafkaMessage, TopicPartitions } from '../types';
import { sleep } from '../../async';
import { describeError } from '../../errors';
import type { GroupMember } from '../consumer';
import { startManualCommitConsumer, type ManualCommitConsumerOptions } from '../manual-commit-consumer';
import { HeldRecords } from './held-records';
import { RECORDS_PER_TURN } from './pacing';
import { PartitionProgress } from './partition-progress';

/** How often a partition's committed offset catches up with the records done. */
const COMMIT_INTERVAL_MS = 100;
/** How long a partition rests after what became of a record could not be written. */
const FAILURE_BACKOFF_MS = 1000;
/** How long stop() waits for the records in flight to be done and committed when it is given no hand-back signal. */
const DRAIN_TIMEOUT_MS = 10_000;

/** One record read, and where from. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/** The group, its session, its topics and fetch settings as for startManualCommitConsumer; then what is done with each record. */
export interface ConcurrentConsumerOptions extends Omit<
  ManualCommitConsumerOptions,
  'partitionsConsumedConcurrently' | 'eachBatch' | 'onAssigned' | 'onRevoked'
> {
  /** Partitions whose batches are handled side by side. Default 32. */
  partitionsConsumedConcurrently?: number;
  /** Records in flight per partition; a batch waits for a slot beyond that (librdkafka heartbeats meanwhile). */
  partitionConcurrency: number;
  /**
   * Does what the record is for; resolves once what became of it is durably written (then its
   * offset may be committed). A rejection means it could not be written: the partition is read
   * again from its lowest record not yet done, after a pause.
   */
  handle: (record: ConsumedRecord) => Promise<void>;
  /** Topics whose records each wait until due (delay topics, e.g. retry tiers), and when that is (epoch ms). */
  delayed?: { topics: readonly string[]; dueAt: (topic: string, message: KafkaMessage) => number };
  /** Partitions of delay topics holding records until due (paused once they hold their limit), whenever that count changes. */
  onPausedPartitions?: (count: number) => void;
  now?: () => number;
}

/**
 * Reads its topics in a consumer group and hands each record to `handle`, concurrently across
 * partitions and, within a partition, across keys (one key's records go one after another, in
 * offset order).
 *
 * Records are started without waiting for the ones before them (up to partitionConcurrency in
 * flight per partition), so a slow record delays only its own key. The committed offset of a
 * partition is the lowest offset still in flight: everything below it is durably done. A crash
 * repeats records rather than losing them: at least once.
 *
 * A record of a delay topic that is not yet due pauses only its own partition (HeldRecords).
 * Nothing sleeps in `handle`, no record is skipped, and other partitions go on.
 */
export class ConcurrentConsumer {
  private consumer: Consumer | undefined;
  private member: GroupMember | undefined;
  private readonly now: () => number;
  private readonly delayTopics: ReadonlySet<string>;
  private readonly held: HeldRecords;
  /** Partitions resting after a failed write (failed()), by topic/partition. */
  private readonly backoffTimers = new Map<string, NodeJS.Timeout>();
  private readonly partitions = new Map<string, PartitionProgress>();
  private generation = 0;
  private stopping = false;

  constructor(private readonly options: ConcurrentConsumerOptions) {
    this.now = options.now ?? Date.now;
    this.delayTopics = new Set(options.delayed?.topics ?? []);
    const dueAt = options.delayed?.dueAt ?? (() => 0);
    this.held = new HeldRecords({
      logger: options.logger,
      partitionConcurrency: options.partitionConcurrency,
      now: this.now,
      dueAt,
      pause: (partitions) => this.consumer?.pause(partitions),
      resume: (partitions) => this.resumeQuietly(partitions),
      begin: (progress, message) => this.begin(progress, message),
      alive: (progress) => !this.stopping && !progress.rewound && progress.generation === this.generation,
      ...(options.onPausedPartitions ? { onPausedPartitions: options.onPausedPartitions } : {}),
    });
  }

  async start(): Promise<void> {
    // A start that failed is stopped before it is tried again (runInBackground): this one runs.
    this.stopping = false;
    const { kafka, logger, groupId, session, topics, fetch } = this.options;
    this.member = await startManualCommitConsumer({
      ...{ kafka, logger, groupId, session, topics },
      ...(fetch ? { fetch } : {}),
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 32,
      eachBatch: (payload) => this.processBatch(payload),
      onAssigned: () => {
        // New assignment: work of the old one finishes, but no longer commits (its new owner reads from the last commit).
        this.generation += 1;
        this.partitions.clear();
        this.clearTimers();
        // Pauses outlive a rebalance, and the timers that would lift them are gone: every
        // partition is read again from its committed offset, and held again if not due.
        const paused = this.consumer?.paused() ?? [];
        // Stopping: everything stays paused (see stop()).
        if (paused.length > 0 && !this.stopping) this.consumer?.resume(paused);
      },
    });
    this.consumer = this.member.consumer;
  }

  /** True while this replica is a member of its group with an assignment (false while it rejoins). */
  get joined(): boolean {
    return this.member?.joined ?? false;
  }

  /** Per delay topic, when its earliest record held in memory until due is due (epoch ms); topics holding none are absent. */
  heldDueTimes(): Map<string, number> {
    return this.held.earliestDue(this.partitions.values());
  }

  /**
   * Starts no new record; waits for those in flight to be done, until `handBack` is aborted (by
   * default for DRAIN_TIMEOUT_MS); commits what is done and leaves the group. A record still in
   * flight then stays uncommitted: its partition's next owner reads it again (at least once).
   */
  async stop(handBack: AbortSignal = AbortSignal.timeout(DRAIN_TIMEOUT_MS)): Promise<void> {
    this.clearTimers();
    this.stopping = true;
    // Every partition assigned: processBatch now starts nothing, and the client would fetch the
    // same records again and again.
    this.consumer?.pause(this.options.topics.map((topic) => ({ topic })));
    await this.drain(handBack);
    await this.member?.stop();
  }

  /** Resumes a partition from a timer: the consumer may have stopped meanwhile (the client then throws). */
  private resumeQuietly(partitions: TopicPartitions[]): void {
    if (this.stopping) return;
    try {
      this.consumer?.resume(partitions);
    } catch (error) {
      this.options.logger.warn({ err: describeError(error) }, 'partition not resumed');
    }
  }

  private clearTimers(): void {
    for (const timer of this.backoffTimers.values()) clearTimeout(timer);
    this.backoffTimers.clear();
    this.held.clear();
  }

  private async processBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const running = () => payload.isRunning() && !payload.isStale() && !this.stopping;
    if (batch.messages.length === 0 || !running()) return;
    const progress = this.progressOf(batch.topic, batch.partition);
    if (this.delayTopics.has(batch.topic)) return this.held.take(payload, progress);
    let startedThisTurn = 0;
    for (const message of batch.messages) {
      if (startedThisTurn === RECORDS_PER_TURN) {
        await setImmediate();
        startedThisTurn = 0;
      }
      if (!running()) return;
      // Backpressure: at most partitionConcurrency records of this partition in flight.
      while (progress.pending.size >= this.options.partitionConcurrency) {
        await progress.slotFreed();
        if (!running()) return;
      }
      this.begin(progress, message);
      startedThisTurn += 1;
      // The fetch position moves on; the committed offset follows what is durably done (finish()).
      payload.resolveOffset(message.offset);
    }
  }

  /**
   * Starts one record without waiting for it: records of one key are chained one after another;
   * other keys go side by side. A slow record holds only its own key, never the partition.
   */
  private begin(progress: PartitionProgress, message: KafkaMessage): void {
    const offset = BigInt(message.offset);
    progress.pending.add(offset);
    progress.highestStarted = offset;
    const key = message.key?.toString('utf8') ?? '';
    const previous = progress.chains.get(key) ?? Promise.resolve();
    const work = previous
      .then(() => this.options.handle({ topic: progress.topic, partition: progress.partition, message }))
      .then(
        () => this.finish(progress, offset),
        (error: unknown) => this.failed(progress, offset, error),
      );
    progress.chains.set(key, work);
    void work.then(() => {
      if (progress.chains.get(key) === work) progress.chains.delete(key);
    });
  }

  /** A record is durably done: the committed offset may move up to the lowest one still in flight. */
  private finish(progress: PartitionProgress, offset: bigint): void {
    progress.pending.delete(offset);
    progress.wakeOne();
    this.scheduleCommit(progress);
  }

  /**
   * What became of a record could not be written (Kafka or the registry unavailable): read the
   * partition again from it (later records may repeat).
   */
  private failed(progress: PartitionProgress, offset: bigint, error: unknown): void {
    const where = { topic: progress.topic, partition: progress.partition, offset: String(offset), err: describeError(error) };
    if (this.stopping) {
      // Handed back: nothing more is committed for the partition; its next owner reads the record again.
      this.options.logger.info(where, 'record not recorded while stopping; left to the next owner');
      progress.finish();
      return;
    }
    this.options.logger.warn(where, 'record not recorded; reading again');
    if (progress.generation !== this.generation || progress.rewound) return;
    progress.rewound = true;
    const id = `${progress.topic}/${progress.partition}`;
    const partition = [{ topic: progress.topic, partitions: [progress.partition] }];
    this.held.release(progress);
    // From the lowest record not yet durably done, not from the one that failed: a record below it
    // still in flight may fail afterwards, and this progress no longer answers for it.
    const from = progress.lowestUndone(offset);
    this.consumer?.seek({ topic: progress.topic, partition: progress.partition, offset: String(from) });
    // A second before reading again, rather than a hot loop while Kafka or the registry is away.
    this.consumer?.pause(partition);
    clearTimeout(this.backoffTimers.get(id));
    this.backoffTimers.set(
      id,
      setTimeout(() => {
        this.backoffTimers.delete(id);
        this.resumeQuietly(partition);
      }, FAILURE_BACKOFF_MS).unref(),
    );
    this.partitions.delete(id);
    progress.finish();
  }

  /** Commits the partition's watermark at most every COMMIT_INTERVAL_MS. */
  private scheduleCommit(progress: PartitionProgress): void {
    if (progress.commitTimer || progress.rewound) return;
    progress.commitTimer = setTimeout(() => {
      progress.commitTimer = undefined;
      void this.commit(progress);
    }, COMMIT_INTERVAL_MS);
  }

  private async commit(progress: PartitionProgress): Promise<void> {
    if (progress.generation !== this.generation || progress.rewound || !this.consumer) return;
    const low = progress.lowestUndone();
    if (low <= progress.committed) return;
    progress.committed = low;
    await this.consumer
      .commitOffsets([{ topic: progress.topic, partition: progress.partition, offset: low.toString() }])
      .catch((error: unknown) =>
        this.options.logger.warn(
          { topic: progress.topic, partition: progress.partition, err: describeError(error) },
          'offset commit failed; the records may be delivered again',
        ),
      );
  }

  private progressOf(topic: string, partition: number): PartitionProgress {
    const id = `${topic}/${partition}`;
    let progress = this.partitions.get(id);
    if (!progress) {
      progress = new PartitionProgress(topic, partition, this.generation);
      this.partitions.set(id, progress);
    }
    return progress;
  }

  /** Waits for what is in flight to be recorded (until `handBack` is aborted), then commits: on shutdown. */
  private async drain(handBack: AbortSignal): Promise<void> {
    // Held records are not in flight: they stay uncommitted and are read again after a restart.
    const inFlight = () => [...this.partitions.values()].some((p) => p.pending.size > p.held.length);
    while (inFlight() && !handBack.aborted) await sleep(20);
    await Promise.all([...this.partitions.values()].map((p) => (clearTimeout(p.commitTimer), this.commit(p))));
  }
}
