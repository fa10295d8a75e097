/*
 * The transactional mode of a GroupMember: consume-transform-produce, exactly once. What the
 * records of its partitions become is written in the member's own transactions, together with the
 * offsets the group resumes from.
 */
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import { sleep } from '@hookstream/runtime';
import { inBatchSpan } from '../record-trace';
import { joinGroup, type MemberSession } from './member-session';
import { MemberTransactions, offsetsByTopic, type OutputRecord } from './member-transactions';
import type { MemberGroupOptions, TransactionalMode } from './options';

/** How long after a failed look at where the group resumes it is tried again, at first (it doubles up to MAX_REWIND_BACKOFF_MS). */
const REWIND_BACKOFF_MS = 200;
const MAX_REWIND_BACKOFF_MS = 5000;

/** A batch handed in, waiting for its transaction. */
interface PendingBatch {
  topic: string;
  partition: number;
  /** The batch's first offset: where the group resumes while no transaction of the batch committed. */
  first: bigint;
  /** Where the group resumes once the transaction commits: the batch's last offset + 1. */
  next: bigint;
  /** False once the batch is no longer this member's (stopping, or its partition revoked). */
  current: () => boolean;
  records: OutputRecord[];
  done: { resolve: () => void; reject: (error: unknown) => void };
}

/**
 * A group member with one transactional producer. The batches its partitions hand in while a
 * transaction is being written wait for the next one, so a transaction carries every batch of a
 * fetch (one per partition) and, under load, everything handed in meanwhile: one transaction per
 * member per round, however many partitions it owns.
 *
 * Each transaction commits its partitions' offsets with the consumer's group metadata (KIP-447):
 * a member that lost its partitions to a rebalance or was expelled is fenced by its generation,
 * its transaction aborts, and nothing of it is read. A transaction that fails may have committed
 * all the same (its commit's answer lost: see MemberTransactions): its batches' partitions are read
 * again from the offsets the group committed, which say whether it did, and never written again
 * from memory; after a commit, none is read again. A crashed member's open transaction is aborted
 * by the coordinator after `transactionTimeoutMs`, and until then the group's new owners wait for
 * it (committed offsets stay unstable) rather than read past it. Readers of the output topics use
 * read_committed.
 */
export class TransactionalBatches {
  private member: MemberSession | undefined;
  private readonly transactions: MemberTransactions;
  private queue: PendingBatch[] = [];
  private writing: Promise<void> | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: MemberGroupOptions<TransactionalMode>) {
    this.logger = options.logger.child({ module: 'transactional-batches', groupId: options.groupId });
    const { groupId, mode } = options;
    this.transactions = new MemberTransactions(options.kafka, {
      groupId,
      ...(mode.maxBatchBytes !== undefined ? { maxBatchBytes: mode.maxBatchBytes } : {}),
      ...(mode.transactionTimeoutMs !== undefined ? { transactionTimeoutMs: mode.transactionTimeoutMs } : {}),
    });
  }

  async start(): Promise<void> {
    await this.transactions.open();
    const { kafka, logger, groupId, session, topics, fetch, partitionState, mode } = this.options;
    this.member = await joinGroup({
      ...(this.options.onFatal ? { onFatal: this.options.onFatal } : {}),
      ...{ kafka, logger, groupId, session, topics, autoCommit: false },
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 1,
      ...(fetch ? { fetch } : {}),
      ...(partitionState ? { partitionState } : {}),
      eachBatch: async (payload) => {
        const { batch } = payload;
        const current = () => payload.isRunning() && !payload.isStale();
        if (batch.messages.length === 0 || !current()) return;
        const records = await inBatchSpan(batch, () => mode.transform(batch, current));
        // Handed back unresolved: the client reads the batch again wherever the partition is owned.
        if (!current()) return;
        const last = batch.messages[batch.messages.length - 1]!.offset;
        const first = BigInt(batch.messages[0]!.offset);
        await this.write({ topic: batch.topic, partition: batch.partition, first, next: BigInt(last) + 1n, current, records });
        payload.resolveOffset(last);
      },
      // A rebalance waits until what was handed in is committed or aborted: the partitions' next
      // owners then read from offsets that no transaction of this member will still change.
      onRevoked: () => this.settled(),
    });
  }

  /** True while this member belongs to its group with an assignment (false while it rejoins). */
  get joined(): boolean {
    return this.member?.joined ?? false;
  }

  /** Fetches nothing more; the batches in hand are committed or handed back; leaves the group; closes the producer. */
  async stop(): Promise<void> {
    await this.member?.stop();
    await this.settled();
    await this.transactions.close();
  }

  /** Hands a batch in for the next transaction; resolves once that transaction committed. */
  private write(batch: Omit<PendingBatch, 'done'>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...batch, done: { resolve, reject } });
      this.writing ??= this.writeRounds().finally(() => (this.writing = undefined));
    });
  }

  private async writeRounds(): Promise<void> {
    // The batches of one fetch reach eachBatch in the same turn of the event loop: they share a transaction.
    await setImmediate();
    while (this.queue.length > 0) {
      const round = this.queue.splice(0);
      try {
        await this.transact(round);
        for (const batch of round) batch.done.resolve();
      } catch (error) {
        this.logger.warn(
          { batches: round.length, err: describeError(error) },
          "transaction failed; its partitions are read again from the group's committed offsets",
        );
        // Before the batches are handed back: the rewind makes them stale, so the client does not hand their records over again.
        await this.rewind(round);
        for (const batch of round) batch.done.reject(error);
      }
    }
  }

  private async transact(round: PendingBatch[]): Promise<void> {
    const started = process.hrtime.bigint();
    const records = round.flatMap((batch) => batch.records);
    await this.transactions.commit(records, offsetsByTopic(round), this.member!.consumer);
    this.options.mode.onCommitted?.(Number(process.hrtime.bigint() - started) / 1e9, round.length);
  }

  /**
   * The partitions of a failed transaction's batches are read again from where the group resumes.
   * Asked of the group once the member's producer is open again: a new producer fences the one that
   * failed and ends its transaction first, so the committed offsets no longer change under it. A
   * partition the group has no offset for resumes at its batch's first offset (no transaction with
   * its offsets committed, this one's included). Tried until it works or the batches are no longer
   * this member's (their partitions' next owner reads from the committed offsets).
   */
  private async rewind(round: PendingBatch[]): Promise<void> {
    for (let backoffMs = REWIND_BACKOFF_MS; ; backoffMs = Math.min(2 * backoffMs, MAX_REWIND_BACKOFF_MS)) {
      const batches = round.filter((batch) => batch.current());
      if (batches.length === 0) return;
      try {
        await this.transactions.open();
        const consumer = this.member!.consumer;
        const committed = await consumer.committed(batches.map(({ topic, partition }) => ({ topic, partition })));
        for (const { topic, partition, first } of batches) {
          const offset = committed.find((c) => c.topic === topic && c.partition === partition)?.offset ?? String(first);
          consumer.seek({ topic, partition, offset });
        }
        return;
      } catch (error) {
        this.logger.warn({ err: describeError(error) }, 'where the group resumes is not known yet; asking again');
        await sleep(backoffMs);
      }
    }
  }

  /** Resolves once nothing handed in waits for a transaction. */
  private async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }
}
