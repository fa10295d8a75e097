/*
 * One consumer group of the document-fetcher: partner-events, or the retry tiers, read by shared's
 * ConcurrentConsumer (one webhook's records in order per transaction number, concurrency across
 * them, commits at the lowest record in flight, tier records held until due), each record handled
 * by DocumentRecords.
 */
import { ConcurrentConsumer, type GroupSession, type Kafka, type Logger } from '@hookstream/shared';
import type { DocumentFetcherMetrics } from '../metrics';
import type { DocumentRecords } from './document-records';

export interface DocumentConsumerOptions {
  kafka: Kafka;
  logger: Logger;
  metrics: DocumentFetcherMetrics;
  groupId: string;
  session: GroupSession;
  records: DocumentRecords;
  /** partner-events' real name. */
  partnerEvents: string;
  /** Records in flight per partition. */
  partitionConcurrency: number;
  /**
   * partner-events, or the retry tiers: each its own group, as in the callback-sender, so that the
   * nearly always idle tier partitions are not in partner-events' fetch loop.
   */
  reads: 'partner-events' | 'retry-tiers';
}

export class DocumentConsumer {
  private readonly consumer: ConcurrentConsumer;

  constructor(options: DocumentConsumerOptions) {
    const logger = options.logger.child({ module: 'document-consumer', reads: options.reads });
    const { records } = options;
    const tiers = options.reads === 'retry-tiers';
    this.consumer = new ConcurrentConsumer({
      kafka: options.kafka,
      logger,
      groupId: options.groupId,
      session: options.session,
      topics: tiers ? records.retryTopics : [options.partnerEvents],
      fetch: { maxWaitMs: tiers ? 250 : 100, ...(tiers ? { maxBytesPerPartition: 64 * 1024 } : {}) },
      partitionConcurrency: options.partitionConcurrency,
      handle: (record) => records.handle(record),
      delayed: { topics: records.retryTopics, dueAt: (_topic, message) => records.dueAt(message) },
      onPausedPartitions: (count) => options.metrics.pausedPartitions.set(count),
    });
  }

  start(): Promise<void> {
    return this.consumer.start();
  }

  get joined(): boolean {
    return this.consumer.joined;
  }

  /** No new records start; those in flight finish and are committed, or once `handBack` is aborted are left to the next owner. */
  stop(handBack?: AbortSignal): Promise<void> {
    return this.consumer.stop(handBack);
  }
}
