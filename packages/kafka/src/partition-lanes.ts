/*
 * The records a group member has taken from librdkafka, one lane per assigned partition, and the
 * batches handed over from them: at most `concurrency` partitions' batches at a time, one batch of
 * a partition at a time, in offset order (GroupConsumer's bookkeeping, kept apart from its loop).
 */
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import { sleep } from '@hookstream/runtime';
import type { NativeGroupClient } from './native-clients';
import type { Batch, KafkaMessage, ReadRecord, TopicPartition, TopicPartitions } from './types';

/** How long a seek librdkafka refused (a partition not fetching yet) waits before it is tried again. */
const SEEK_RETRY_MS = 100;
const SEEK_TIMEOUT_MS = 5000;

export interface Lane {
  readonly topic: string;
  readonly partition: number;
  /** Taken from librdkafka, not yet handed over (a batch handed back returns to its front). */
  buffer: KafkaMessage[];
  /** Bumped by a seek and a revocation: a batch handed over before is stale. */
  epoch: number;
  assigned: boolean;
  paused: boolean;
  /** A seek under way: what librdkafka returns for the partition meanwhile is from before it. */
  seeking: boolean;
  /** Where the seek under way goes (a later seek changes it). */
  seekTo: bigint | undefined;
  /** The batch in hand, if any, and since when (epoch ms). */
  busy: Promise<void> | undefined;
  busySince: number;
  /** Batches failed in a row (their backoff grows with it). */
  failures: number;
}

export interface PartitionLanesOptions {
  native: Pick<NativeGroupClient, 'pause' | 'resume' | 'seek'>;
  logger: Logger;
  /** Most records of a partition in one batch. */
  maxBatchSize: number;
  /** Resolves once the fetch loop's take from librdkafka under way (if any) has returned. */
  takeDone: () => Promise<void>;
  /** Something changed that may let the fetch loop go on (a lane drained, a seek done). */
  signal: () => void;
  /** Hands a batch to the member's handler; says the offset resolved last and whether the batch failed. */
  handOver: (lane: Lane, batch: Batch, isStale: () => boolean) => Promise<{ resolved?: string; failed: boolean }>;
}

export class PartitionLanes {
  /** Partitions whose batches are in hand at once. */
  concurrency = 1;
  private readonly lanes = new Map<string, Lane>();
  private active = 0;
  private readonly busy = new Set<Promise<void>>();
  /** Seeks under way: the fetch loop takes nothing from librdkafka until they are applied. */
  seeks = 0;
  private stopped = false;

  constructor(private readonly options: PartitionLanesOptions) {}

  /** True when the lanes that may be handed over hold two batches' worth (the loop then waits for them). */
  full(): boolean {
    let held = 0;
    for (const lane of this.lanes.values()) if (!lane.paused) held += lane.buffer.length;
    return held >= this.options.maxBatchSize * 2;
  }

  open(partitions: TopicPartition[]): void {
    for (const { topic, partition } of partitions) {
      this.lanes.set(key(topic, partition), {
        ...{ topic, partition, buffer: [], epoch: 0, assigned: true, paused: false, seeking: false, seekTo: undefined },
        ...{ busy: undefined, busySince: 0, failures: 0 },
      });
    }
  }

  /** The partitions' batches in hand become stale and what was taken for them is dropped. */
  revoke(partitions: TopicPartition[]): void {
    for (const { topic, partition } of partitions) {
      const lane = this.lanes.get(key(topic, partition));
      if (!lane) continue;
      lane.assigned = false;
      lane.epoch += 1;
      lane.buffer = [];
    }
  }

  close(partitions: TopicPartition[]): void {
    for (const { topic, partition } of partitions) this.lanes.delete(key(topic, partition));
  }

  /** No batch is handed over any more (the member stops). */
  stop(): void {
    this.stopped = true;
  }

  /** Since when (epoch ms) the batch in hand longest has been; undefined when none is. */
  oldestBusySince(): number | undefined {
    let oldest: number | undefined;
    for (const lane of this.lanes.values()) if (lane.busy && (oldest === undefined || lane.busySince < oldest)) oldest = lane.busySince;
    return oldest;
  }

  /** Resolves once no batch is in hand. */
  async settled(): Promise<void> {
    while (this.busy.size > 0) await Promise.allSettled([...this.busy]);
  }

  /** Records taken from librdkafka, into their lanes; then batches are handed over. */
  add(records: ReadRecord[]): void {
    for (const { topic, partition, message } of records) {
      const lane = this.lanes.get(key(topic, partition));
      // Not (or no longer) this member's, or from before a seek: librdkafka returns them again where they belong.
      if (!lane || !lane.assigned || lane.seeking) continue;
      lane.buffer.push(message);
    }
    this.dispatch();
  }

  assigned(): TopicPartition[] {
    return [...this.lanes.values()].filter((l) => l.assigned).map(({ topic, partition }) => ({ topic, partition }));
  }

  /** The assigned partitions `partitions` names (a topic without partitions: all of its own). */
  expand(partitions: Array<{ topic: string; partitions?: number[] }>): Lane[] {
    return partitions.flatMap(({ topic, partitions: numbers }) =>
      [...this.lanes.values()].filter((l) => l.topic === topic && l.assigned && (!numbers || numbers.includes(l.partition))),
    );
  }

  /** Pauses (or resumes) fetching the lanes and handing their records over. */
  pause(lanes: Lane[], paused: boolean): void {
    if (lanes.length === 0) return;
    for (const lane of lanes) lane.paused = paused;
    const partitions = lanes.map(({ topic, partition }) => ({ topic, partition }));
    if (paused) this.options.native.pause(partitions);
    else this.options.native.resume(partitions);
    if (!paused) this.dispatch();
  }

  paused(): TopicPartitions[] {
    const byTopic = new Map<string, number[]>();
    for (const lane of this.lanes.values()) {
      if (lane.paused && lane.assigned) byTopic.set(lane.topic, [...(byTopic.get(lane.topic) ?? []), lane.partition]);
    }
    return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
  }

  /**
   * The partition is read from `offset` next: what was taken for it is dropped, a batch in hand is
   * stale, and librdkafka is told (tried again while it refuses, until the partition is revoked).
   */
  seek(topic: string, partition: number, offset: bigint): void {
    const lane = this.lanes.get(key(topic, partition));
    if (!lane?.assigned) return;
    lane.epoch += 1;
    lane.buffer = [];
    lane.seekTo = offset;
    if (lane.seeking) return;
    lane.seeking = true;
    this.seeks += 1;
    void this.applySeek(lane).finally(() => {
      lane.seeking = false;
      this.seeks -= 1;
      this.options.signal();
      this.dispatch();
    });
  }

  private async applySeek(lane: Lane): Promise<void> {
    // A take under way may return records from before the seek; none starts while a seek is under way.
    await this.options.takeDone();
    while (lane.assigned && lane.seekTo !== undefined) {
      const offset = lane.seekTo;
      const error = await new Promise<unknown>((resolve) =>
        this.options.native.seek({ topic: lane.topic, partition: lane.partition, offset: Number(offset) }, SEEK_TIMEOUT_MS, resolve),
      );
      if (!error && lane.seekTo === offset) return void (lane.seekTo = undefined);
      if (error) {
        this.options.logger.debug(
          { topic: lane.topic, partition: lane.partition, err: describeError(error) },
          'seek refused; trying again',
        );
        await sleep(SEEK_RETRY_MS);
      }
    }
  }

  /** Hands over the next batch of every lane that has records and may, up to `concurrency` at once. */
  private dispatch(): void {
    for (const lane of [...this.lanes.values()]) {
      if (this.active >= this.concurrency) return;
      if (this.stopped || lane.busy || lane.paused || lane.seeking || !lane.assigned || lane.buffer.length === 0) continue;
      // To the back of the line: the next dispatch serves the other partitions first.
      const k = key(lane.topic, lane.partition);
      this.lanes.delete(k);
      this.lanes.set(k, lane);
      this.active += 1;
      // Started in a microtask: the lane is marked busy before the handler runs (it may resume partitions, which dispatches).
      const busy = Promise.resolve()
        .then(() => this.handOver(lane))
        .finally(() => {
          this.active -= 1;
          lane.busy = undefined;
          this.busy.delete(busy);
          this.options.signal();
          this.dispatch();
        });
      lane.busy = busy;
      lane.busySince = Date.now();
      this.busy.add(busy);
    }
  }

  private async handOver(lane: Lane): Promise<void> {
    const epoch = lane.epoch;
    const messages = lane.buffer.splice(0, this.options.maxBatchSize);
    const batch = { topic: lane.topic, partition: lane.partition, messages };
    const { resolved, failed } = await this.options.handOver(lane, batch, () => lane.epoch !== epoch || !lane.assigned);
    lane.failures = failed ? lane.failures + 1 : 0;
    if (lane.epoch !== epoch || !lane.assigned) return;
    // What was not resolved is handed over again, first.
    const done = resolved === undefined ? 0 : messages.findIndex((m) => m.offset === resolved) + 1;
    if (done < messages.length) lane.buffer.unshift(...messages.slice(done));
  }
}

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
