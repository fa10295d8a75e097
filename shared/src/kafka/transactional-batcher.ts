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
  /** Unique per process and stable across its restarts is ideal; unique per process is required. */
  transactionalId: string;
  logger: Logger;
  /** Most atomic writes per Kafka transaction. Default 200. */
  maxWritesPerTransaction?: number;
}

/**
 * Commits groups of records atomically (a Kafka transaction), coalescing the groups that arrive
 * while a transaction is in flight into the next one: a transaction costs a few round trips,
 * and kafkajs allows one at a time per producer. Every group's promise settles with its
 * transaction: resolved once committed (acks=all), rejected if aborted, so no caller is told
 * "written" for records a consumer reading committed data will never see.
 *
 * After a failed transaction the producer is replaced (same transactional id, so the broker
 * fences the old one), since kafkajs can leave a producer in an unusable transaction state.
 */
export class TransactionalBatcher {
  private producer: Producer | undefined;
  private connecting: Promise<Producer> | undefined;
  private readonly queue: Pending[] = [];
  private running = false;
  private readonly max: number;
  readonly stats = { transactions: 0, writes: 0, failures: 0 };

  constructor(private readonly options: TransactionalBatcherOptions) {
    this.max = options.maxWritesPerTransaction ?? 200;
  }

  /** Connects the producer now (optional: the first commit connects too). */
  async connect(): Promise<void> {
    await this.getProducer();
  }

  async disconnect(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect();
  }

  /** Resolves once `write` is committed as part of a transaction. */
  commit(write: AtomicWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private getProducer(): Promise<Producer> {
    if (this.producer) return Promise.resolve(this.producer);
    this.connecting ??= (async () => {
      const producer = this.options.kafka.producer({
        createPartitioner: javaCompatiblePartitioner,
        transactionalId: this.options.transactionalId,
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
      this.producer = producer;
      return producer;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.max);
        try {
          await this.runTransaction(batch.map((p) => p.write));
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
    } finally {
      this.running = false;
    }
  }

  private async runTransaction(writes: AtomicWrite[]): Promise<void> {
    const producer = await this.getProducer();
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
      const broken = this.producer;
      this.producer = undefined;
      await broken?.disconnect().catch(() => undefined);
      throw error;
    }
  }
}
