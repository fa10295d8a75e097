/*
 * A consumer-group member's own transactional producer: what the member's records became and the
 * offsets its group resumes from, written together in one transaction with the member's group
 * metadata (KIP-447). Built once for the transactional and concurrent modes of a GroupMember.
 *
 * A failed commit is handled as librdkafka's rd_kafka_commit_transaction documents, by the flags
 * its errors carry. Retriable (the call timed out, the coordinator slow): the commit may have
 * reached the coordinator, so the same commit is called again until it answers; a new transaction
 * with the same records would write them twice once the first one completes anyway. Requiring an
 * abort: the transaction is aborted, and nothing of it is read. Fatal, or an abort that failed, or
 * a commit still unanswered past its bound: the producer is closed, and the next one opened under
 * the same transactional id fences it, ending its transaction (committed or aborted) before it
 * begins. Either way what the transaction carried is not known to be written, and not known not
 * to be: its caller reads its partitions again from the offsets the group committed (which say
 * which way it went), never writes again what it holds (test/transaction-commit-faults.int.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { sleep } from '@hookstream/runtime';
import type { Kafka } from '../client';
import type { Consumer, Message, Producer, TopicMessages, TopicOffsets, Transaction } from '../types';

/** The first pause before a retriable commit is called again; it doubles up to MAX_COMMIT_BACKOFF_MS. */
const COMMIT_BACKOFF_MS = 100;
const MAX_COMMIT_BACKOFF_MS = 1000;

/** A record to write in a member's transaction. */
export interface OutputRecord {
  topic: string;
  message: Message;
}

export interface MemberTransactionsOptions {
  groupId: string;
  /** Largest record batch written: the output topics' `max.message.bytes`. */
  maxBatchBytes?: number;
  /** How long a member's crash may leave its transaction open (the group's partitions wait for it). Default 10 s. */
  transactionTimeoutMs?: number;
}

/**
 * One transactional id per member, never shared: KIP-447 fences a member by its group's generation,
 * so a member that lost its partitions to a rebalance or was expelled cannot commit its offsets
 * (its transaction aborts, and nothing of it is read by read_committed readers). A failed
 * transaction is aborted, or its producer replaced (see the file's header).
 */
export class MemberTransactions {
  private producer: Promise<Producer> | undefined;
  private readonly transactionalId: string;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: MemberTransactionsOptions,
  ) {
    this.transactionalId = `${options.groupId}-${randomUUID()}`;
  }

  /** Opens the producer (before the member joins: a member that cannot write should not own partitions). */
  async open(): Promise<void> {
    await this.ready();
  }

  /**
   * Writes the records and commits the offsets in one transaction. A retriable commit is called
   * again; on failure the transaction is aborted or its producer closed (see the file's header), and
   * the error thrown: the records may be written or not, and the group's committed offsets say which.
   */
  async commit(records: OutputRecord[], offsets: TopicOffsets[], consumer: Consumer): Promise<void> {
    let transaction: Transaction | undefined;
    try {
      transaction = await (await this.ready()).transaction();
      const topicMessages = byTopic(records);
      // The offsets after the records' acknowledgement, not beside them: sent while the records
      // were in flight they saved a round trip alone (npm run bench:transaction), but at 200
      // events/s the fan-out's transactions' p99 rose from 21–40 to 80–98 ms (docs/benchmarks.md).
      if (topicMessages.length > 0) await transaction.sendBatch({ topicMessages });
      if (offsets.length > 0) await transaction.sendOffsets({ consumer, topics: offsets });
      await this.finish(transaction);
    } catch (error) {
      await this.end(transaction, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await (await producer?.catch(() => undefined))?.disconnect().catch(() => undefined);
  }

  /** Commits, calling the commit again while librdkafka says it is retriable, up to twice the transaction's timeout. */
  private async finish(transaction: Transaction): Promise<void> {
    const giveUpAt = Date.now() + 2 * this.timeoutMs();
    for (let backoffMs = COMMIT_BACKOFF_MS; ; backoffMs = Math.min(2 * backoffMs, MAX_COMMIT_BACKOFF_MS)) {
      try {
        return await transaction.commit();
      } catch (error) {
        if (!flag(error, 'isRetriable') || flag(error, 'isFatal') || Date.now() + backoffMs >= giveUpAt) throw error;
        await sleep(backoffMs);
      }
    }
  }

  /**
   * A failed transaction: aborted unless fatal (an error requiring an abort, and any other: librdkafka
   * refuses an abort while a commit of the transaction is under way, so an abort that succeeds means
   * nothing of it commits); if it was fatal or the abort failed, the producer is closed.
   */
  private async end(transaction: Transaction | undefined, error: unknown): Promise<void> {
    const aborted =
      transaction && !flag(error, 'isFatal')
        ? await transaction.abort().then(
            () => true,
            () => false,
          )
        : false;
    if (!aborted) await this.close();
  }

  private timeoutMs(): number {
    return this.options.transactionTimeoutMs ?? 10_000;
  }

  private ready(): Promise<Producer> {
    if (!this.producer) {
      const timeoutMs = this.timeoutMs();
      const producer = this.kafka.producer({
        transactionalId: this.transactionalId,
        transactionTimeoutMs: timeoutMs,
        // A record's delivery may not outlast its transaction.
        deliveryTimeoutMs: timeoutMs,
        // Sent at once: the offsets and the commit wait for the records' acknowledgement, so a
        // linger (librdkafka's default, 5 ms) was added to every transaction. A transaction's
        // records queue while its partitions are added to it, so they mostly leave together.
        lingerMs: 0,
        ...(this.options.maxBatchBytes ? { maxBatchBytes: this.options.maxBatchBytes } : {}),
      });
      const connected = producer.connect().then(() => producer);
      this.producer = connected;
      connected.catch(() => {
        if (this.producer === connected) this.producer = undefined;
      });
    }
    return this.producer;
  }
}

/** One of the flags librdkafka's errors carry (a plain Error has none). */
function flag(error: unknown, name: 'isRetriable' | 'isFatal'): boolean {
  return typeof error === 'object' && error !== null && (error as Record<string, unknown>)[name] === true;
}

/** The records grouped by topic, in order, as sendBatch takes them. */
function byTopic(records: OutputRecord[]): TopicMessages[] {
  const grouped = new Map<string, Message[]>();
  for (const { topic, message } of records) {
    const messages = grouped.get(topic);
    if (messages) messages.push(message);
    else grouped.set(topic, [message]);
  }
  return [...grouped].map(([topic, messages]) => ({ topic, messages }));
}

/** The offsets to commit, by topic: one per partition, the highest given for it. */
export function offsetsByTopic(offsets: Iterable<{ topic: string; partition: number; next: bigint }>): TopicOffsets[] {
  const topics = new Map<string, Map<number, bigint>>();
  for (const { topic, partition, next } of offsets) {
    const partitions = topics.get(topic) ?? new Map<number, bigint>();
    if ((partitions.get(partition) ?? -1n) < next) partitions.set(partition, next);
    topics.set(topic, partitions);
  }
  return [...topics].map(([topic, partitions]) => ({
    topic,
    partitions: [...partitions].map(([partition, offset]) => ({ partition, offset: offset.toString() })),
  }));
}
