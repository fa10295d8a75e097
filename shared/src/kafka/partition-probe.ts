/*
 * Where the partitions of a topic begin and end for a read_committed reader, and the first
 * committed record at or after an offset: what consumer lag in records and in seconds is computed
 * from. Neither is in kafkajs's public API (its admin asks for end offsets without an isolation
 * level, and only a group member fetches records), so this talks to the partition leaders through
 * a kafkajs cluster of its own, as TopicReader does.
 */
import type { Kafka, KafkaMessage } from 'kafkajs';
import { READ_COMMITTED, createOwnCluster } from './own-cluster';

/** Where one partition begins (`low`) and ends (`end`: the last stable offset, what a read_committed reader can reach). */
export interface PartitionBounds {
  partition: number;
  low: bigint;
  end: bigint;
}

/** The first committed record at or after an offset: its offset and its timestamp (epoch ms). */
export interface FirstRecord {
  offset: bigint;
  timestamp: number;
}

/** The part of kafkajs's (internal, untyped) Cluster the probe uses. */
interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number }>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(query: {
    nodeId: string;
  }): Promise<{ fetch(request: unknown): Promise<{ responses: Array<{ partitions: PartitionData[] }> }> }>;
  fetchTopicsOffset(
    topics: Array<{ topic: string; fromBeginning: boolean; partitions: Array<{ partition: number }> }>,
  ): Promise<Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>>;
}
interface PartitionData {
  partition: number;
  highWatermark: string;
}
interface KafkajsBatch {
  messages: KafkaMessage[];
  isEmpty(): boolean;
  lastOffset(): string;
}

/** kafkajs's Batch: drops records before the fetched offset, aborted transactions' records and markers. */
const Batch = require('kafkajs/src/consumer/batch') as new (topic: string, fetchedOffset: string, data: PartitionData) => KafkajsBatch;

/** A fetch past markers and aborted records gives up after this many record batches (each marker is one). */
const MAX_BATCHES_SKIPPED = 16;

export class PartitionProbe {
  private cluster: KafkajsCluster | undefined;

  constructor(private readonly kafka: Kafka) {}

  /** Each partition's first offset and last stable offset. */
  async bounds(topic: string): Promise<PartitionBounds[]> {
    return this.guarded(async (cluster) => {
      await cluster.addTargetTopic(topic);
      await cluster.refreshMetadataIfNecessary();
      const partitions = cluster.findTopicPartitionMetadata(topic).map((p) => ({ partition: p.partitionId }));
      const [lows, ends] = await Promise.all(
        [true, false].map(async (fromBeginning) => {
          const [found] = await cluster.fetchTopicsOffset([{ topic, fromBeginning, partitions }]);
          return new Map((found?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
        }),
      );
      return partitions.map(({ partition }) => ({ partition, low: lows!.get(partition) ?? 0n, end: ends!.get(partition) ?? 0n }));
    });
  }

  /**
   * The first committed record of `partition` at or after `from` and before `end`, or undefined when
   * there is none (only transaction markers or aborted records lie between). Each fetch brings one
   * record batch: the broker returns at least one, whatever the size limit, so a limit of one byte
   * means exactly one.
   */
  async firstRecord(topic: string, partition: number, from: bigint, end: bigint): Promise<FirstRecord | undefined> {
    return this.guarded(async (cluster) => {
      await cluster.addTargetTopic(topic);
      await cluster.refreshMetadataIfNecessary();
      let offset = from;
      for (let batches = 0; offset < end && batches < MAX_BATCHES_SKIPPED; batches++) {
        const [nodeId] = Object.keys(cluster.findLeaderForPartitions(topic, [partition]));
        if (nodeId === undefined) throw new Error(`no leader for ${topic}/${partition}`);
        const broker = await cluster.findBroker({ nodeId });
        const { responses } = await broker.fetch({
          isolationLevel: READ_COMMITTED,
          maxWaitTime: 0,
          minBytes: 0,
          maxBytes: 1,
          topics: [{ topic, partitions: [{ partition, fetchOffset: offset.toString(), maxBytes: 1 }] }],
        });
        const data = responses.flatMap((r) => r.partitions).find((p) => p.partition === partition);
        if (!data) return undefined;
        const batch = new Batch(topic, offset.toString(), data);
        const first = batch.messages[0];
        if (first) return { offset: BigInt(first.offset), timestamp: Number(first.timestamp) };
        // Only markers or aborted records (or nothing): step past them; always forward.
        const next = BigInt(batch.lastOffset()) + 1n;
        offset = next > offset ? next : offset + 1n;
      }
      // Records still lie between but were not reached: lag in records stands, its age is unknown (now).
      return offset < end ? { offset, timestamp: Date.now() } : undefined;
    });
  }

  async disconnect(): Promise<void> {
    const cluster = this.cluster;
    this.cluster = undefined;
    await cluster?.disconnect().catch(() => undefined);
  }

  /** Runs `work` on a connected cluster; after a failure the cluster is dropped, and the next call builds a new one. */
  private async guarded<T>(work: (cluster: KafkajsCluster) => Promise<T>): Promise<T> {
    try {
      this.cluster ??= await this.connectCluster();
      return await work(this.cluster);
    } catch (error) {
      await this.disconnect();
      throw error;
    }
  }

  /** A connected kafkajs cluster of its own, read_committed. */
  private async connectCluster(): Promise<KafkajsCluster> {
    const cluster = createOwnCluster<KafkajsCluster>(this.kafka, READ_COMMITTED, 'partition probe');
    await cluster.connect();
    return cluster;
  }
}
