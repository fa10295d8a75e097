/**
 * The one consumer setup for a service that commits offsets itself (a transaction, or a watermark
 * of records durably done): read_committed, from the beginning when the group has none, automatic
 * commits and offset resolution off, batches of several partitions side by side.
 */
import type { ConsumerOptions, Kafka } from './client';
import type { Logger } from 'pino';
import { startConsumer, type GroupMember, type GroupSession, type ManagedConsumerOptions } from './consumer';
import type { EachBatchPayload } from './types';

/** How a fetch waits and how much it brings (the client's defaults where unset). */
export type FetchSettings = Pick<ConsumerOptions, 'maxWaitMs' | 'minBytes' | 'maxBytesPerPartition' | 'maxBatchSize'>;

export interface ManualCommitConsumerOptions {
  kafka: Kafka;
  logger: Logger;
  groupId: string;
  /** Session and heartbeat of the group member (they bound failover after a crash). */
  session: GroupSession;
  topics: string[];
  fetch?: FetchSettings;
  /** Partitions whose batches are handled side by side. */
  partitionsConsumedConcurrently: number;
  /** Resolves each offset itself (eachBatchAutoResolve is off) and commits it itself. */
  eachBatch: (payload: EachBatchPayload) => Promise<void>;
  onAssigned?: ManagedConsumerOptions['onAssigned'];
  onRevoked?: ManagedConsumerOptions['onRevoked'];
}

/** A group member running with manual commits (see the file's header). */
export function startManualCommitConsumer(options: ManualCommitConsumerOptions): Promise<GroupMember> {
  return startConsumer({
    kafka: options.kafka,
    logger: options.logger,
    // read_committed: the topics read may be written in transactions (callback-requests is).
    config: {
      groupId: options.groupId,
      readUncommitted: false,
      fromBeginning: true,
      autoCommit: false,
      ...options.session,
      ...options.fetch,
    },
    topics: options.topics,
    ...(options.onAssigned ? { onAssigned: options.onAssigned } : {}),
    ...(options.onRevoked ? { onRevoked: options.onRevoked } : {}),
    run: {
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
      eachBatch: options.eachBatch,
    },
  });
}
