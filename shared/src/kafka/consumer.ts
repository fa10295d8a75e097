import type { Consumer, ConsumerConfig, ConsumerRunConfig, Kafka } from 'kafkajs';
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

/**
 * A consumer that is connected, subscribed and running when this resolves, logs (and counts on
 * kafkajs to restart) crashes, and is stopped by `disconnect()`: kafkajs finishes the batch in
 * hand and, with autoCommit, commits what was processed before leaving the group.
 */
export async function startConsumer(options: ManagedConsumerOptions): Promise<Consumer> {
  const logger = options.logger.child({ module: 'consumer', groupId: options.config.groupId });
  const consumer = options.kafka.consumer(options.config);
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    logger.error({ err: payload.error.message, restart: payload.restart }, 'consumer crashed');
  });
  options.beforeRun?.(consumer);
  await consumer.connect();
  for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? false });
  await consumer.run(options.run);
  options.afterRun?.(consumer);
  return consumer;
}

/**
 * Tracks when a consumer has read every partition up to the end offsets they had at start,
 * from kafkajs's END_BATCH_PROCESS events: they also fire for batches that hold only transaction
 * markers or aborted records (which never reach eachMessage/eachBatch), so a topic ending in a
 * marker still counts as read.
 */
export class CatchUpTracker {
  private readonly remaining: Map<number, bigint>;
  private done = false;
  private resolveDone: () => void = () => undefined;
  /** Resolves once caught up. */
  readonly caughtUp: Promise<void>;

  /** `ends`: per partition, the last offset at start (high watermark - 1); empty partitions left out. */
  constructor(ends: Map<number, bigint>) {
    this.remaining = new Map(ends);
    this.caughtUp = new Promise((resolve) => (this.resolveDone = resolve));
    this.check();
  }

  get isCaughtUp(): boolean {
    return this.done;
  }

  attach(consumer: Consumer): void {
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => this.read(payload.partition, payload.lastOffset));
  }

  /** Records that `partition` has been read up to `offset`. */
  read(partition: number, offset: string): void {
    const end = this.remaining.get(partition);
    if (end !== undefined && BigInt(offset) >= end) this.remaining.delete(partition);
    this.check();
  }

  private check(): void {
    if (!this.done && this.remaining.size === 0) {
      this.done = true;
      this.resolveDone();
    }
  }
}

/** Per partition, the last offset of `topic` now (high watermark - 1), leaving out empty partitions. */
export async function endOffsets(kafka: Kafka, topic: string): Promise<{ ends: Map<number, bigint>; partitions: number }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    const ends = new Map<number, bigint>();
    for (const p of offsets) if (BigInt(p.high) > BigInt(p.low)) ends.set(p.partition, BigInt(p.high) - 1n);
    return { ends, partitions: offsets.length };
  } finally {
    await admin.disconnect();
  }
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
