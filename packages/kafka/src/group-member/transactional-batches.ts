/*
 * The transactional mode of a GroupMember: consume-transform-produce, exactly once. What the
 * records of its partitions become is written in the member's own transactions, together with the
 * offsets the group resumes from.
 */
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import { joinGroup, type MemberSession } from './member-session';
import { MemberTransactions, offsetsByTopic, type OutputRecord } from './member-transactions';
import type { MemberGroupOptions, TransactionalMode } from './options';

/** A batch handed in, waiting for its transaction. */
interface PendingBatch {
  topic: string;
  partition: number;
  /** Where the group resumes once the transaction commits: the batch's last offset + 1. */
  next: bigint;
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
 * its transaction aborts, and nothing of it is read. A transaction that fails is aborted and its
 * batches are read again; after a commit, none is. A crashed member's open transaction is aborted
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
      ...{ kafka, logger, groupId, session, topics, autoCommit: false },
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 1,
      ...(fetch ? { fetch } : {}),
      ...(partitionState ? { partitionState } : {}),
      eachBatch: async (payload) => {
        const { batch } = payload;
        const current = () => payload.isRunning() && !payload.isStale();
        if (batch.messages.length === 0 || !current()) return;
        const records = await mode.transform(batch, current);
        // Handed back unresolved: the client reads the batch again wherever the partition is owned.
        if (!current()) return;
        const last = batch.messages[batch.messages.length - 1]!.offset;
        await this.write({ topic: batch.topic, partition: batch.partition, next: BigInt(last) + 1n, records });
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
        this.logger.warn({ batches: round.length, err: describeError(error) }, 'transaction failed; its batches will be read again');
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

  /** Resolves once nothing handed in waits for a transaction. */
  private async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }
}
