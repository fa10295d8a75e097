/*
 * Where the partitions of a topic begin and end for a read_committed reader, and the first
 * committed record at or after an offset: what consumer lag in records and in seconds is computed
 * from. A consumer outside any group of its own (PartitionConsumer) asks the partition leaders.
 */
import type { Kafka } from './client';
import type { PartitionBounds, PartitionConsumer } from './types';

export type { PartitionBounds } from './types';

/** The first committed record at or after an offset: its offset and its timestamp (epoch ms). */
export interface FirstRecord {
  offset: bigint;
  timestamp: number;
}

/** How long firstRecord() waits for the leader's answer. */
const FIRST_RECORD_TIMEOUT_MS = 5_000;

export class PartitionProbe {
  private consumer: PartitionConsumer | undefined;
  /** Where the consumer reached the end of the partition it was last assigned (markers and aborted records included). */
  private endReached: bigint | undefined;

  constructor(
    private readonly kafka: Kafka,
    /** Ask as a read_uncommitted reader: bounds() then ends at the high watermark, open transactions' records included. */
    private readonly options: { readUncommitted?: boolean } = {},
  ) {}

  /** Each partition's first offset and last stable offset (the high watermark when reading uncommitted). */
  async bounds(topic: string): Promise<PartitionBounds[]> {
    return this.guarded(async (consumer) => consumer.bounds(topic, await consumer.partitionsOf(topic)));
  }

  /**
   * The first committed record of `partition` at or after `from` and before `end`, or undefined when
   * there is none (only transaction markers or aborted records lie between).
   */
  async firstRecord(topic: string, partition: number, from: bigint, end: bigint): Promise<FirstRecord | undefined> {
    if (from >= end) return undefined;
    return this.guarded(async (consumer) => {
      this.endReached = undefined;
      consumer.assign([{ topic, partition, offset: from }]);
      try {
        const deadline = Date.now() + FIRST_RECORD_TIMEOUT_MS;
        while (Date.now() < deadline) {
          const [first] = await consumer.consume(1);
          if (first) {
            const offset = BigInt(first.message.offset);
            return offset < end ? { offset, timestamp: Number(first.message.timestamp) } : undefined;
          }
          if (this.endReached !== undefined) return undefined;
        }
        // Records lie between but none came in time: lag in records stands, its age is unknown (now).
        return { offset: from, timestamp: Date.now() };
      } finally {
        consumer.assign([]);
      }
    });
  }

  async disconnect(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.disconnect().catch(() => undefined);
  }

  /** Runs `work` on a connected consumer; after a failure it is dropped, and the next call makes a new one. */
  private async guarded<T>(work: (consumer: PartitionConsumer) => Promise<T>): Promise<T> {
    try {
      if (!this.consumer) {
        const consumer = this.kafka.partitionConsumer({
          maxWaitMs: 100,
          readUncommitted: this.options.readUncommitted ?? false,
          onEnd: (_topic, _partition, offset) => (this.endReached = offset),
        });
        await consumer.connect();
        this.consumer = consumer;
      }
      return await work(this.consumer);
    } catch (error) {
      await this.disconnect();
      throw error;
    }
  }
}
