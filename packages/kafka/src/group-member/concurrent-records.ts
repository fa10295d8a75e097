/*
 * The concurrent mode of a GroupMember (one of its groups): each record handed to `handle`
 * concurrently (across partitions, and within a partition across keys), and what became of the
 * records written, with the offsets the group resumes from, in the member's own transactions.
 */
import { setImmediate } from 'node:timers/promises';
import type { Consumer, EachBatchPayload, KafkaMessage } from '../types';
import { sleep } from '@hookstream/runtime';
import { describeError } from '@hookstream/errors';
import { inRecordSpan } from '../record-trace';
import { joinGroup, type MemberSession } from './member-session';
import { MemberTransactions, type OutputRecord } from './member-transactions';
import type { ConcurrentMode, ConsumedRecord, MemberGroupOptions } from './options';
import { HeldRecords } from './held-records';
import { RECORDS_PER_TURN } from './pacing';
import { PartitionProgress } from './partition-progress';
import { Rewinds } from './rewinds';
import { Rounds } from './rounds';

/** How long stop() waits for the records in flight to be done and committed when it is given no hand-back signal. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Reads its topics in a consumer group and hands each record to `handle`, concurrently across
 * partitions and, within a partition, across keys (one key's records go one after another, in
 * offset order).
 *
 * Records are started without waiting for the ones before them (up to partitionConcurrency in
 * flight per partition), so a slow record delays only its own key, and what became of a record is
 * written in the next round (Rounds, within roundIntervalMs), whatever is still in flight below it. Each
 * round is one transaction of this member (MemberTransactions): what the records done since the last
 * one became, and per partition the lowest offset still in flight, with the group's metadata (KIP-447),
 * so a member that lost its partitions or was expelled writes nothing more. A crash or a failed
 * round repeats records rather than losing them: at least once.
 *
 * A record of a delay topic that is not yet due pauses only its own partition (HeldRecords).
 * Nothing sleeps in `handle`, no record is skipped, and other partitions go on.
 */
export class ConcurrentRecords {
  private consumer: Consumer | undefined;
  private member: MemberSession | undefined;
  private readonly now: () => number;
  private readonly delayTopics: ReadonlySet<string>;
  private readonly held: HeldRecords;
  private readonly transactions: MemberTransactions;
  private readonly rewinds: Rewinds;
  private readonly partitions = new Map<string, PartitionProgress>();
  private readonly rounds: Rounds;
  private readonly mode: ConcurrentMode;
  private generation = 0;
  private stopping = false;

  constructor(private readonly options: MemberGroupOptions<ConcurrentMode>) {
    const { mode } = options;
    this.mode = mode;
    this.now = mode.now ?? Date.now;
    this.delayTopics = new Set(mode.delayed?.topics ?? []);
    this.transactions = new MemberTransactions(options.kafka, { groupId: options.groupId });
    this.rewinds = new Rewinds({
      logger: options.logger,
      consumer: () => this.consumer,
      stopping: () => this.stopping,
      forget: (progress) => {
        this.held.release(progress);
        this.partitions.delete(`${progress.topic}/${progress.partition}`);
      },
    });
    this.rounds = new Rounds({
      intervalMs: mode.roundIntervalMs ?? 500,
      commit: (records, offsets, consumer) => this.transactions.commit(records, offsets, consumer),
      logger: options.logger,
      current: () => [...this.partitions.values()].filter((progress) => this.current(progress)),
      consumer: () => this.consumer,
      lost: (progress) => {
        if (this.current(progress)) this.rewinds.rewind(progress);
      },
      committed: (progress) => this.rewinds.recovered(progress.topic, progress.partition),
    });
    const dueAt = mode.delayed?.dueAt ?? (() => 0);
    this.held = new HeldRecords({
      logger: options.logger,
      partitionConcurrency: mode.partitionConcurrency,
      now: this.now,
      dueAt,
      pause: (partitions) => this.consumer?.pause(partitions),
      resume: (partitions) => this.rewinds.resumeQuietly(partitions),
      begin: (progress, message) => this.begin(progress, message),
      alive: (progress) => !this.stopping && this.current(progress),
      ...(mode.onPausedPartitions ? { onPausedPartitions: mode.onPausedPartitions } : {}),
    });
  }

  async start(): Promise<void> {
    // A start that failed is stopped before it is tried again (runInBackground): this one runs.
    this.stopping = false;
    // A member that cannot write what it does should not own partitions.
    await this.transactions.open();
    const { kafka, logger, groupId, session, topics, fetch } = this.options;
    this.member = await joinGroup({
      ...(this.options.onFatal ? { onFatal: this.options.onFatal } : {}),
      ...{ kafka, logger, groupId, session, topics, autoCommit: false },
      ...(fetch ? { fetch } : {}),
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 32,
      eachBatch: (payload) => this.processBatch(payload),
      // What is done is written before the partitions go: their next owner reads from there.
      onRevoked: async () => {
        await this.rounds.now();
        this.endAssignment();
      },
      onAssigned: () => {
        this.endAssignment();
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
   * default for DRAIN_TIMEOUT_MS); writes what is done and leaves the group. A record still in
   * flight then stays uncommitted: its partition's next owner reads it again (at least once).
   */
  async stop(handBack: AbortSignal = AbortSignal.timeout(DRAIN_TIMEOUT_MS)): Promise<void> {
    this.clearTimers();
    this.stopping = true;
    // Every partition assigned: processBatch now starts nothing, and the client would fetch the
    // same records again and again.
    this.consumer?.pause(this.options.topics.map((topic) => ({ topic })));
    // Held records are not in flight: they stay uncommitted and are read again after a restart.
    const inFlight = () => [...this.partitions.values()].some((p) => p.pending.size > p.held.length);
    while (inFlight() && !handBack.aborted) await sleep(20);
    await this.rounds.now();
    await this.member?.stop();
    await this.transactions.close();
  }

  /** A revocation or a new assignment: the work of the old assignment finishes but writes nothing more. */
  private endAssignment(): void {
    this.generation += 1;
    this.partitions.clear();
    this.clearTimers();
  }

  private current(progress: PartitionProgress): boolean {
    return progress.generation === this.generation && !progress.rewound;
  }

  private clearTimers(): void {
    this.rewinds.clear();
    this.held.clear();
  }

  private async processBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const running = () => payload.isRunning() && !payload.isStale() && !this.stopping;
    if (batch.messages.length === 0 || !running()) return;
    const progress = this.progressOf(batch.topic, batch.partition, BigInt(batch.messages[0]!.offset));
    if (this.delayTopics.has(batch.topic)) return this.held.take(payload, progress);
    if (this.mode.beforeBatch) {
      try {
        await this.mode.beforeBatch({ topic: batch.topic, partition: batch.partition, messages: batch.messages });
      } catch (error) {
        // None of the batch has started: the partition is read again from its last commit, as after a record's failure.
        return this.failed(progress, BigInt(batch.messages[0]!.offset), error);
      }
      // Meanwhile an earlier record of the partition may have failed (it is read again from its last commit): start nothing of this reading.
      if (!this.current(progress)) return;
    }
    let startedThisTurn = 0;
    for (const message of batch.messages) {
      if (startedThisTurn === RECORDS_PER_TURN) {
        await setImmediate();
        startedThisTurn = 0;
      }
      if (!running()) return;
      // Backpressure: at most partitionConcurrency records of this partition in flight.
      while (progress.pending.size >= this.mode.partitionConcurrency) {
        await progress.slotFreed();
        if (!running()) return;
      }
      this.begin(progress, message);
      startedThisTurn += 1;
      // The fetch position moves on; the committed offset follows what is done (round()).
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
      .then(() =>
        // Rewound or revoked while it waited behind its key: the partition is read again from its
        // last commit, this record with it, so starting it here would do it twice (a callback sent twice).
        this.current(progress) ? this.handleTraced({ topic: progress.topic, partition: progress.partition, message }) : undefined,
      )
      .then(
        (outputs) => (outputs ? this.finish(progress, offset, outputs) : this.dropped(progress, offset)),
        (error: unknown) => this.failed(progress, offset, error),
      );
    progress.chains.set(key, work);
    void work.then(() => {
      if (progress.chains.get(key) === work) progress.chains.delete(key);
    });
  }

  /** `handle` in a span continuing the record's trace (record-trace.ts). */
  private handleTraced(record: ConsumedRecord): Promise<OutputRecord[]> {
    return inRecordSpan(record, () => this.mode.handle(record));
  }

  /** A record is done: what it became goes in the next round, and the committed offset may move up to the lowest one still in flight. */
  private finish(progress: PartitionProgress, offset: bigint, outputs: OutputRecord[]): void {
    progress.pending.delete(offset);
    progress.outputs.push(...outputs);
    progress.wakeOne();
    this.rounds.soon();
  }

  /** A record not started because its partition will be read again: it only leaves the records in flight. */
  private dropped(progress: PartitionProgress, offset: bigint): void {
    progress.pending.delete(offset);
    progress.wakeOne();
  }

  /** A record could not be done now (Kafka or the registry unavailable): its partition is read again from its last commit. */
  private failed(progress: PartitionProgress, offset: bigint, error: unknown): void {
    const where = { topic: progress.topic, partition: progress.partition, offset: String(offset), err: describeError(error) };
    if (this.stopping) {
      // Handed back: nothing more is written for the partition; its next owner reads the record again.
      this.options.logger.info(where, 'record not done while stopping; left to the next owner');
      progress.finish();
      return;
    }
    this.options.logger.warn(where, 'record not done; reading its partition again from its last commit');
    if (this.current(progress)) this.rewinds.rewind(progress);
  }

  private progressOf(topic: string, partition: number, firstOffset: bigint): PartitionProgress {
    const id = `${topic}/${partition}`;
    let progress = this.partitions.get(id);
    if (!progress) {
      progress = new PartitionProgress(topic, partition, this.generation, firstOffset);
      this.partitions.set(id, progress);
    }
    return progress;
  }
}
