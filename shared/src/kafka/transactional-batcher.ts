import type { Kafka, Message, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { KafkaUnavailableError, describeError } from '../errors';
import { javaCompatiblePartitioner } from './client';
import { isRetryableKafkaError } from './retryable';

/** Records that must become visible together or not at all. */
export type AtomicWrite = Array<{ topic: string; message: Message }>;

interface Pending {
  write: AtomicWrite;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface TransactionalBatcherOptions {
  kafka: Kafka;
  /** Unique per process (a prefix when several producers work: `<id>-0…n-1`). */
  transactionalId: string;
  logger: Logger;
  /** Most atomic writes per Kafka transaction. Default 200. */
  maxWritesPerTransaction?: number;
  /**
   * Transactional producers working side by side. kafkajs runs one transaction at a time per
   * producer; several let the next batch start while one commits. Default 1.
   */
  producers?: number;
}

interface Slot {
  producer?: Producer;
  connecting?: Promise<Producer>;
}

/**
 * Commits groups of records atomically (a Kafka transaction), coalescing the groups that arrive
 * while the producers are busy into the next transaction: a transaction costs a few round trips.
 * Every group's promise settles with its transaction: resolved once committed (acks=all),
 * rejected if aborted, so no caller is told "written" for records that a consumer reading
 * committed data will never see. Groups carry no order between each other; records within a
 * group keep theirs.
 *
 * After a failed transaction its producer is replaced (same transactional id, so the broker
 * fences the old one), since kafkajs can leave a producer in an unusable transaction state.
 */
export class TransactionalBatcher {
  private readonly slots: Slot[];
  private readonly idle: number[];
  private readonly queue: Pending[] = [];
  private readonly max: number;
  readonly stats = { transactions: 0, writes: 0, failures: 0 };

  constructor(private readonly options: TransactionalBatcherOptions) {
    this.max = options.maxWritesPerTransaction ?? 200;
    const count = Math.max(1, options.producers ?? 1);
    this.slots = Array.from({ length: count }, () => ({}));
    this.idle = Array.from({ length: count }, (_, i) => count - 1 - i);
  }

  /** Connects the producers now (optional: the first commits connect them too). */
  async connect(): Promise<void> {
    await Promise.all(this.slots.map((_, i) => this.getProducer(i)));
  }

  async disconnect(): Promise<void> {
    await Promise.all(
      this.slots.map(async (slot) => {
        const producer = slot.producer;
        slot.producer = undefined;
        await producer?.disconnect();
      }),
    );
  }

  /** Resolves once `write` is committed as part of a transaction. */
  commit(write: AtomicWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.pump();
    });
  }

  /** Hands queued writes to idle producers, one transaction each. */
  private pump(): void {
    while (this.queue.length > 0 && this.idle.length > 0) {
      const index = this.idle.pop()!;
      const batch = this.queue.splice(0, this.max);
      void this.runBatch(index, batch).finally(() => {
        this.idle.push(index);
        this.pump();
      });
    }
  }

  private getProducer(index: number): Promise<Producer> {
    const slot = this.slots[index]!;
    if (slot.producer) return Promise.resolve(slot.producer);
    slot.connecting ??= (async () => {
      const producer = this.options.kafka.producer({
        createPartitioner: javaCompatiblePartitioner,
        transactionalId: this.slots.length === 1 ? this.options.transactionalId : `${this.options.transactionalId}-${index}`,
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
      });
      try {
        await producer.connect();
      } catch (error) {
        await producer.disconnect().catch(() => undefined);
        throw error;
      }
      slot.producer = producer;
      return producer;
    })().finally(() => (slot.connecting = undefined));
    return slot.connecting;
  }

  private async runBatch(index: number, batch: Pending[]): Promise<void> {
    try {
      await this.runTransaction(
        index,
        batch.map((p) => p.write),
      );
      this.stats.transactions += 1;
      this.stats.writes += batch.length;
      for (const p of batch) p.resolve();
    } catch (error) {
      this.stats.failures += 1;
      const failure = isRetryableKafkaError(error)
        ? new KafkaUnavailableError(`a Kafka transaction failed: ${describeError(error)}`, error)
        : error;
      for (const p of batch) p.reject(failure);
    }
  }

  private async runTransaction(index: number, writes: AtomicWrite[]): Promise<void> {
    const producer = await this.getProducer(index);
    const byTopic = new Map<string, Message[]>();
    for (const write of writes) {
      for (const { topic, message } of write) {
        const list = byTopic.get(topic) ?? [];
        list.push(message);
        byTopic.set(topic, list);
      }
    }
    let transaction;
    try {
      transaction = await producer.transaction();
      await transaction.sendBatch({ topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })), acks: -1 });
      await transaction.commit();
    } catch (error) {
      this.options.logger.warn({ err: describeError(error) }, 'transaction failed; replacing the transactional producer');
      await transaction?.abort().catch(() => undefined);
      const slot = this.slots[index]!;
      const broken = slot.producer;
      slot.producer = undefined;
      await broken?.disconnect().catch(() => undefined);
      throw error;
    }
  }
}
