import type { ConsumerOptions, Kafka } from './client';
import type { Logger } from 'pino';
import type { Consumer, ConsumerRunConfig, TopicPartition } from './types';

export interface ManagedConsumerOptions {
  kafka: Kafka;
  logger: Logger;
  /** The member's settings; `onRebalance` is the managed consumer's own (see `onAssigned`). */
  config: Omit<ConsumerOptions, 'onRebalance'>;
  topics: string[];
  run: ConsumerRunConfig;
  /** Called when the group gives this member its partitions (a join, maybe with none). */
  onAssigned?: (partitions: TopicPartition[]) => void;
  /** Called when a rebalance takes this member's partitions; the rebalance waits for its promise. */
  onRevoked?: (partitions: TopicPartition[]) => Promise<void>;
}

/** A consumer-group member's session settings (see KAFKA_SESSION_TIMEOUT_MS in config.ts). */
export interface GroupSession {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** See ConsumerOptions.rebalanceTimeoutMs. */
  rebalanceTimeoutMs?: number;
  /** See ConsumerOptions.groupInstanceId. */
  groupInstanceId?: string;
}

/** The session settings of a service's config. */
export function groupSessionOf(config: {
  KAFKA_SESSION_TIMEOUT_MS: number;
  KAFKA_HEARTBEAT_INTERVAL_MS: number;
  KAFKA_GROUP_INSTANCE_ID?: string;
}): GroupSession {
  return {
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: config.KAFKA_HEARTBEAT_INTERVAL_MS,
    ...(config.KAFKA_GROUP_INSTANCE_ID ? { groupInstanceId: config.KAFKA_GROUP_INSTANCE_ID } : {}),
  };
}

/** A running group member, and whether it holds an assignment now (not rebalancing or stopped). */
export interface GroupMember {
  readonly consumer: Consumer;
  readonly joined: boolean;
  /** Waits for the batches in hand, leaves the group and disconnects. */
  stop(): Promise<void>;
}

/**
 * A consumer that is connected, subscribed and running when this resolves (it joins its group in
 * the background), and is stopped by `disconnect()`, which waits for the batches in hand and
 * leaves the group. A rejected batch is read again from its first record not resolved.
 */
export async function startConsumer(options: ManagedConsumerOptions): Promise<GroupMember> {
  const logger = options.logger.child({ module: 'consumer', groupId: options.config.groupId });
  let joined = false;
  const consumer = options.kafka.consumer({
    ...options.config,
    onRebalance: async (event, partitions) => {
      logger.info({ event, partitions: partitions.length }, 'rebalance');
      joined = event === 'assigned';
      if (event === 'assigned') options.onAssigned?.(partitions);
      else await options.onRevoked?.(partitions);
    },
  });
  await consumer.connect();
  await consumer.subscribe({ topics: options.topics });
  await consumer.run(options.run);
  return {
    consumer,
    get joined() {
      return joined;
    },
    stop: async () => {
      joined = false;
      await consumer.disconnect();
    },
  };
}

/**
 * Per partition, the offset of the first record at or after `timestamp` (epoch ms); the end of the
 * partition when none is that recent.
 */
export async function offsetsAt(kafka: Kafka, topic: string, timestamp: number): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, timestamp);
    return new Map(byTime.map((p) => [p.partition, BigInt(p.offset)]));
  } finally {
    await admin.disconnect();
  }
}
