import type { Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { sleep } from '../async';
import { describeError } from '../errors';
import { offsetsAt } from './consumer';
import { createOwnCluster } from './own-cluster';

/**
 * Reads every partition of one topic, without a consumer group, for a replica that keeps the
 * whole topic as its own state (the ingress's idempotency ledger, the partner directory, the
 * sender's latest versions).
 *
 * Why not a consumer group: such a replica needs every partition, so a group only adds a session
 * that must be waited out. A kafkajs consumer that loses its broker rejoins as a new member, and the
 * coordinator holds the rebalance until the old member's session expires (30 s here before): the
 * replica's state stood still that long after the broker was back. This reader holds no session:
 * it fetches from each partition's leader, keeps its positions in memory, and goes on with the
 * first fetch that succeeds after a fault. It commits nothing; a restarted replica reads again.
 *
 * It also tells whether its state is current: `isCurrent()` is true only while every partition
 * was fetched successfully within `maxAgeMs`, which is what a replica's readiness should say.
 */
export interface TopicReaderOptions {
  kafka: Kafka;
  logger: Logger;
  topic: string;
  /** Applies the records of one partition's fetch, in offset order. A throw retries the same records. */
  apply: (messages: KafkaMessage[], partition: number) => Promise<void>;
  /** Start at the first record at or after this time (epoch ms); default: each partition's beginning. */
  fromTimestamp?: number;
  /** Read only committed records of transactions (aborted ones and markers are never applied). Default true. */
  readCommitted?: boolean;
  /** Longest a fetch waits for new records when the topic is idle. Default 100 ms. */
  maxWaitMs?: number;
}

/** The part of kafkajs's (internal, untyped) Cluster the reader uses. */
interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  removeBroker(address: { host: string; port: number }): void;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number }>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(query: { nodeId: string }): Promise<KafkajsBroker>;
}
interface KafkajsBroker {
  fetch(request: unknown): Promise<{ responses: Array<{ topicName: string; partitions: PartitionData[] }> }>;
}
interface PartitionData {
  partition: number;
  highWatermark: string;
  lastStableOffset: string;
}
interface KafkajsBatch {
  messages: KafkaMessage[];
  isEmpty(): boolean;
  isEmptyDueToFiltering(): boolean;
  lastOffset(): string;
}

/** kafkajs's Batch: drops records before the fetched offset, aborted transactions' records and markers. */
const Batch = require('kafkajs/src/consumer/batch') as new (topic: string, fetchedOffset: string, data: PartitionData) => KafkajsBatch;

const MAX_BACKOFF_MS = 1_000;
/** After this long of failed fetches, the reader's kafkajs cluster is built anew. */
const REBUILD_AFTER_MS = 5_000;

export class TopicReader {
  private cluster: KafkajsCluster | undefined;
  private partitions: number[] = [];
  /** Per partition, the offset of the next record to read. */
  private readonly positions = new Map<number, bigint>();
  /** Per partition, when the last successful fetch of it was sent. */
  private readonly fetchedAt = new Map<number, number>();
  /** Per partition, when a fetch sent at that time found nothing left to read. */
  private readonly caughtUpAt = new Map<number, number>();
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly logger: Logger;
  private readonly maxWaitMs: number;

  constructor(private readonly options: TopicReaderOptions) {
    this.logger = options.logger.child({ module: 'topic-reader', topic: options.topic });
    this.maxWaitMs = options.maxWaitMs ?? 100;
  }

  /** Connects and resolves once every partition has been read to its end; then keeps reading until `stop()`. */
  async start(): Promise<void> {
    const { kafka, topic } = this.options;
    const cluster = await this.connectCluster();
    this.partitions = cluster.findTopicPartitionMetadata(topic).map((p) => p.partitionId);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const low = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.low)]));
      const starts = this.options.fromTimestamp === undefined ? low : await offsetsAt(kafka, topic, this.options.fromTimestamp);
      for (const partition of this.partitions) this.positions.set(partition, starts.get(partition) ?? 0n);
    } finally {
      await admin.disconnect();
    }
    const startedAt = Date.now();
    this.running = true;
    this.loop = this.readForever();
    await this.caughtUpSince(startedAt, Infinity);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.cluster?.disconnect().catch(() => undefined);
  }

  /** The offset of the next record to read from `partition`. */
  position(partition: number): bigint {
    return this.positions.get(partition) ?? 0n;
  }

  get partitionCount(): number {
    return this.partitions.length;
  }

  /** True while every partition has been fetched successfully within `maxAgeMs`: the state is current. */
  isCurrent(maxAgeMs: number, now = Date.now()): boolean {
    return this.running && this.partitions.every((p) => now - (this.fetchedAt.get(p) ?? 0) <= maxAgeMs);
  }

  /**
   * Resolves once every record written to the topic before this call has been applied; rejects
   * after `timeoutMs`.
   */
  caughtUp(timeoutMs: number): Promise<void> {
    return this.caughtUpSince(Date.now(), timeoutMs);
  }

  private async caughtUpSince(since: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.partitions.every((p) => (this.caughtUpAt.get(p) ?? -1) >= since)) {
      if (!this.running) throw new Error(`the reader of ${this.options.topic} has stopped`);
      if (Date.now() > deadline) throw new Error(`${this.options.topic} was not read up to its end in time`);
      await sleep(5);
    }
  }

  /** A connected kafkajs cluster of its own that knows the topic. */
  private async connectCluster(): Promise<KafkajsCluster> {
    const { kafka, topic } = this.options;
    const cluster = createOwnCluster<KafkajsCluster>(kafka, this.isolationLevel, 'topic reader');
    this.cluster = cluster;
    await cluster.connect();
    await cluster.addTargetTopic(topic);
    return cluster;
  }

  private get isolationLevel(): number {
    return this.options.readCommitted === false ? 0 : 1;
  }

  private async readForever(): Promise<void> {
    let backoffMs = 50;
    let failingSince: number | undefined;
    while (this.running) {
      try {
        await this.fetchOnce();
        if (failingSince !== undefined) this.logger.info('reading again');
        failingSince = undefined;
        backoffMs = 50;
      } catch (error) {
        if (!this.running) return;
        if (failingSince === undefined) this.logger.warn({ err: describeError(error) }, 'fetch failed; retrying until the broker answers');
        failingSince ??= Date.now();
        await this.recover(error, Date.now() - failingSince > REBUILD_AFTER_MS);
        await sleep(backoffMs);
        backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
      }
    }
  }

  /** One fetch from each partition leader, applied in order. */
  private async fetchOnce(): Promise<void> {
    const cluster = this.cluster!;
    const { topic } = this.options;
    await cluster.refreshMetadataIfNecessary();
    const byLeader = cluster.findLeaderForPartitions(topic, this.partitions);
    await Promise.all(
      Object.entries(byLeader).map(async ([nodeId, partitions]) => {
        const sentAt = Date.now();
        const offsets = new Map(partitions.map((p) => [p, this.position(p).toString()]));
        const broker = await cluster.findBroker({ nodeId });
        const { responses } = await broker.fetch({
          isolationLevel: this.isolationLevel,
          maxWaitTime: this.maxWaitMs,
          minBytes: 1,
          maxBytes: 10 * 1024 * 1024,
          topics: [
            {
              topic,
              partitions: partitions.map((partition) => ({ partition, fetchOffset: offsets.get(partition), maxBytes: 1024 * 1024 })),
            },
          ],
        });
        for (const data of responses.flatMap((r) => r.partitions)) {
          const fetchedOffset = offsets.get(data.partition);
          if (fetchedOffset === undefined || this.position(data.partition).toString() !== fetchedOffset) continue;
          await this.applyFetched(new Batch(topic, fetchedOffset, data), data);
          this.fetchedAt.set(data.partition, sentAt);
          const end = BigInt(this.isolationLevel === 1 ? data.lastStableOffset : data.highWatermark);
          if (this.position(data.partition) >= end) this.caughtUpAt.set(data.partition, sentAt);
        }
      }),
    );
  }

  private async applyFetched(batch: KafkajsBatch, data: PartitionData): Promise<void> {
    if (batch.isEmpty()) {
      // Only markers, aborted or compacted-away records: step over them.
      if (batch.isEmptyDueToFiltering()) this.positions.set(data.partition, BigInt(batch.lastOffset()) + 1n);
      return;
    }
    await this.options.apply(batch.messages, data.partition);
    this.positions.set(data.partition, BigInt(batch.lastOffset()) + 1n);
  }

  /** After a failed fetch: a partition whose records were deleted restarts at its beginning; stale metadata is refreshed. */
  private async recover(error: unknown, rebuild: boolean): Promise<void> {
    const e = error as { name?: string; partition?: number; host?: string; port?: number };
    try {
      if (rebuild) {
        // Failing for a while although a broker may long be back: start over with new connections
        // rather than trust a connection pool a broker restart may have left half closed.
        await this.cluster?.disconnect().catch(() => undefined);
        await this.connectCluster();
        return;
      }
      // As kafkajs's own consumer does: a closed connection is dropped, so the next fetch opens a new one.
      if (e.name === 'KafkaJSConnectionClosedError' && e.host && e.port) this.cluster?.removeBroker({ host: e.host, port: e.port });
      if (e.name === 'KafkaJSOffsetOutOfRange' && e.partition !== undefined) {
        const admin = this.options.kafka.admin();
        await admin.connect();
        try {
          const low = (await admin.fetchTopicOffsets(this.options.topic)).find((p) => p.partition === e.partition)?.low;
          this.logger.warn({ partition: e.partition, from: low }, 'records before the position were deleted: reading from the beginning');
          this.positions.set(e.partition, BigInt(low ?? '0'));
        } finally {
          await admin.disconnect();
        }
      } else {
        await this.cluster?.refreshMetadata();
      }
    } catch {
      // The broker is still away: the next fetch tries again.
    }
  }
}
