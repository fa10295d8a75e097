/*
 * A consumer-group member's own transactional producer: what the member's records became and the
 * offsets its group resumes from, written together in one transaction with the member's group
 * metadata (KIP-447). Built once for the transactional and concurrent modes of a GroupMember.
 */
import { randomUUID } from 'node:crypto';
import type { Kafka } from '../client';
import type { Consumer, Message, Producer, TopicMessages, TopicOffsets } from '../types';

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
 * transaction is aborted and its producer replaced: a fenced or failed producer is not trusted with
 * the next one.
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

  /** Writes the records and commits the offsets in one transaction; on failure it is aborted, the producer replaced, and the error thrown. */
  async commit(records: OutputRecord[], offsets: TopicOffsets[], consumer: Consumer): Promise<void> {
    try {
      const transaction = await (await this.ready()).transaction();
      try {
        const topicMessages = byTopic(records);
        if (topicMessages.length > 0) await transaction.sendBatch({ topicMessages });
        if (offsets.length > 0) await transaction.sendOffsets({ consumer, topics: offsets });
        await transaction.commit();
      } catch (error) {
        await transaction.abort().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await (await producer?.catch(() => undefined))?.disconnect().catch(() => undefined);
  }

  private ready(): Promise<Producer> {
    if (!this.producer) {
      const timeoutMs = this.options.transactionTimeoutMs ?? 10_000;
      const producer = this.kafka.producer({
        transactionalId: this.transactionalId,
        transactionTimeoutMs: timeoutMs,
        // A record's delivery may not outlast its transaction.
        deliveryTimeoutMs: timeoutMs,
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
