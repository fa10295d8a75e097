/*
 * One consumer group of the callback-sender: callback-requests, or the retry tiers, read by
 * shared's ConcurrentConsumer (per-policy order, concurrency across policies, commits at the
 * lowest record in flight, tier records held until due), each record handled by CallbackRecords.
 */
import { ConcurrentConsumer, type AvroCodec, type RecordWriter, type GroupSession, type Kafka, type Logger } from '@hookstream/shared';
import type { CallbackSenderMetrics } from '../metrics';
import { CallbackRecords, type CallbackRecordsOptions } from './callback-records';
import type { CallbackTopics } from './disposition-writer';

export interface CallbackConsumerOptions {
  kafka: Kafka;
  codec: AvroCodec;
  logger: Logger;
  metrics: CallbackSenderMetrics;
  groupId: string;
  /** Session and heartbeat of the group member (they bound failover after a crash). */
  session: GroupSession;
  topics: CallbackTopics;
  /** Idempotent acks=all producer for outcomes, retries and dead letters. */
  producer: RecordWriter;
  /** Decides what becomes of one record (domain/send-callback). */
  sendCallback: CallbackRecordsOptions['sendCallback'];
  /** Deliveries in flight per partition. */
  partitionConcurrency: number;
  /**
   * What this consumer reads: callback-requests, or the retry tiers. Each is its own consumer
   * group (see main.ts): the tiers' partitions are idle nearly always and are paused while
   * their records wait, so they have a fetch loop of their own and the requests' fetches
   * carry only the requests.
   */
  reads: 'requests' | 'retry-tiers';
  /** Longest a fetch waits for records; the tiers', whose delays are seconds, can wait longer. */
  maxWaitTimeInMs: number;
  now?: () => number;
}

/**
 * Reads callback-requests, or the retry tiers, and hands each record to the delivery decision
 * (`sendCallback`); one policy's records go one after another, in offset order. A retry record not yet
 * due pauses only its own partition. A crash repeats deliveries rather than losing them: at least
 * once, every repeat with the same delivery id.
 */
export class CallbackConsumer {
  private readonly consumer: ConcurrentConsumer;
  private readonly now: () => number;
  /** The retry tiers' topics, in tier order. */
  private readonly retryTopics: readonly string[];

  constructor(options: CallbackConsumerOptions) {
    const logger = options.logger.child({ module: 'callback-consumer', reads: options.reads });
    const now = options.now ?? Date.now;
    this.now = now;
    const records = new CallbackRecords({ ...options, logger, now });
    this.retryTopics = records.retryTopics;
    const tiers = options.reads === 'retry-tiers';
    this.consumer = new ConcurrentConsumer({
      kafka: options.kafka,
      logger,
      groupId: options.groupId,
      session: options.session,
      topics: tiers ? records.retryTopics : [options.topics.requests],
      fetch: {
        maxWaitMs: options.maxWaitTimeInMs,
        // Smaller fetches on the tiers bound what a paused partition holds in memory (shared's HeldRecords).
        ...(tiers ? { maxBytesPerPartition: 64 * 1024 } : {}),
      },
      partitionConcurrency: options.partitionConcurrency,
      handle: (record) => records.handle(record),
      delayed: { topics: records.retryTopics, dueAt: (_topic, message) => records.dueAt(message) },
      onPausedPartitions: (count) => options.metrics.pausedPartitions.set(count),
      now,
    });
    if (tiers) options.metrics.readRetryOverdueFrom(() => this.retryOverdueSeconds());
  }

  start(): Promise<void> {
    return this.consumer.start();
  }

  /** True while this replica is a member of its group with an assignment (false while it rejoins). */
  get joined(): boolean {
    return this.consumer.joined;
  }

  /**
   * Per retry tier (1-based), how long its earliest record held until due is past its due time, in
   * seconds; 0 when none is (every tier is listed). A held record is started the moment it is due
   * unless its partition has no free slot, so a tier only falls behind when the sender cannot keep up.
   */
  retryOverdueSeconds(): Map<number, number> {
    const dueTimes = this.consumer.heldDueTimes();
    const now = this.now();
    return new Map(this.retryTopics.map((topic, i) => [i + 1, Math.max(0, now - (dueTimes.get(topic) ?? now)) / 1000]));
  }

  /** No new records start; those in flight finish and are committed, or once `handBack` is aborted are left uncommitted for the next owner. */
  stop(handBack?: AbortSignal): Promise<void> {
    return this.consumer.stop(handBack);
  }
}
