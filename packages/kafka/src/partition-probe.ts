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
  /** The partitions of the current firstRecords() that the consumer read to their end (markers and aborted records included). */
  private endsReached: { topic: string; partitions: Set<number> } = { topic: '', partitions: new Set() };

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
    return (await this.firstRecords(topic, [{ partition, from, end }])).get(partition);
  }

  /**
   * firstRecord() for several partitions of `topic`, read together: one assignment of them all and
   * one deadline. (One consumer holds one assignment: partitions asked one by one would wait out
   * their fetches in turn, and asked at once through firstRecord() each would take the others'
   * assignment away.)
   */
  async firstRecords(
    topic: string,
    wanted: ReadonlyArray<{ partition: number; from: bigint; end: bigint }>,
  ): Promise<Map<number, FirstRecord | undefined>> {
    const found = new Map<number, FirstRecord | undefined>();
    const open = new Map<number, { from: bigint; end: bigint }>();
    for (const { partition, from, end } of wanted) {
      if (from >= end) found.set(partition, undefined);
      else open.set(partition, { from, end });
    }
    if (open.size === 0) return found;
    return this.guarded(async (consumer) => {
      this.endsReached = { topic, partitions: new Set() };
      consumer.assign([...open].map(([partition, { from }]) => ({ topic, partition, offset: from })));
      try {
        const deadline = Date.now() + FIRST_RECORD_TIMEOUT_MS;
        while (open.size > 0 && Date.now() < deadline) {
          for (const { partition, message } of await consumer.consume(500)) {
            const asked = open.get(partition);
            if (!asked) continue; // a later record of a partition already answered
            const offset = BigInt(message.offset);
            found.set(partition, offset < asked.end ? { offset, timestamp: Number(message.timestamp) } : undefined);
            open.delete(partition);
          }
          // Read to its end with no record: only markers or aborted records lay between.
          for (const partition of this.endsReached.partitions) if (open.delete(partition)) found.set(partition, undefined);
        }
        // Records lie between but none came in time: lag in records stands, its age is unknown (now).
        const now = Date.now();
        for (const [partition, { from }] of open) found.set(partition, { offset: from, timestamp: now });
        return found;
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
          onEnd: (topic, partition) => {
            if (topic === this.endsReached.topic) this.endsReached.partitions.add(partition);
          },
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
