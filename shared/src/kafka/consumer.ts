import type { Consumer, ConsumerConfig, ConsumerRunConfig } from 'kafkajs';
import type { Kafka } from './client';
import type { Logger } from 'pino';

export interface ManagedConsumerOptions {
  kafka: Kafka;
  logger: Logger;
  /** kafkajs consumer settings; groupId is required. */
  config: ConsumerConfig;
  topics: string[];
  /** Read from the beginning when the group has no committed offset. Default false. */
  fromBeginning?: boolean;
  run: ConsumerRunConfig;
  /** Called with the consumer before it connects: the place to subscribe to its events. */
  beforeRun?: (consumer: Consumer) => void;
  /** Called once `run` has started (seeks belong here: kafkajs accepts them only after run). */
  afterRun?: (consumer: Consumer) => void;
}

/** A consumer-group member's session settings (see KAFKA_SESSION_TIMEOUT_MS in config.ts). */
export interface GroupSession {
  sessionTimeout: number;
  heartbeatInterval: number;
}

/** The session settings of a service's config. */
export function groupSessionOf(config: { KAFKA_SESSION_TIMEOUT_MS: number; KAFKA_HEARTBEAT_INTERVAL_MS: number }): GroupSession {
  return { sessionTimeout: config.KAFKA_SESSION_TIMEOUT_MS, heartbeatInterval: config.KAFKA_HEARTBEAT_INTERVAL_MS };
}

/** A running group member, and whether it holds an assignment now (not rebalancing, crashed or stopped). */
export interface GroupMember {
  consumer: Consumer;
  readonly joined: boolean;
}

/**
 * A consumer that is connected, subscribed and running when this resolves, logs (and counts on
 * kafkajs to restart) crashes, and is stopped by `disconnect()`: kafkajs finishes the batch in
 * hand and, with autoCommit, commits what was processed before leaving the group.
 */
export async function startConsumer(options: ManagedConsumerOptions): Promise<GroupMember> {
  const logger = options.logger.child({ module: 'consumer', groupId: options.config.groupId });
  const consumer = options.kafka.consumer(options.config);
  const member = { consumer, joined: false };
  consumer.on(consumer.events.GROUP_JOIN, () => (member.joined = true));
  consumer.on(consumer.events.REBALANCING, () => (member.joined = false));
  consumer.on(consumer.events.STOP, () => (member.joined = false));
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    member.joined = false;
    logger.error({ err: payload.error.message, restart: payload.restart }, 'consumer crashed');
  });
  options.beforeRun?.(consumer);
  await consumer.connect();
  for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? false });
  await consumer.run(options.run);
  options.afterRun?.(consumer);
  return member;
}

/**
 * Per partition, the offset of the first record at or after `timestamp` (epoch ms); the end of the
 * partition when none is that recent.
 */
export async function offsetsAt(kafka: Kafka, topic: string, timestamp: number): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [byTime, ends] = await Promise.all([admin.fetchTopicOffsetsByTimestamp(topic, timestamp), admin.fetchTopicOffsets(topic)]);
    const high = new Map(ends.map((p) => [p.partition, BigInt(p.high)]));
    return new Map(byTime.map((p) => [p.partition, p.offset === '-1' ? (high.get(p.partition) ?? 0n) : BigInt(p.offset)]));
  } finally {
    await admin.disconnect();
  }
}
