/*
 * Hookstream's Consumer (types.ts) for a consumer-group member, on librdkafka's native consumer.
 * Made by client.ts, which hands in the library's KafkaConsumer class.
 *
 * Why not the KafkaJS-style consumer the library also offers: its workers sleep between fetches
 * until librdkafka calls back that its queue is no longer empty, or a 1 s timer fires, and records
 * regularly waited for the timer: bench:outbound-e2e's p99 was 0.4–0.9 s at every rate with it
 * (docs/benchmarks.md). That callback proved as unreliable here. So one loop takes records from
 * librdkafka, each take waiting in a thread of libuv's pool until the first record is there (at
 * most TAKE_WAIT_MS), and hands them to the partitions' lanes (partition-lanes.ts), which hand
 * batches over side by side. The loop waits without taking only while the lanes hold two batches'
 * worth, a seek or rebalance is applied, or a batch is stuck (see stalled()).
 */
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import { sleep } from '@hookstream/runtime';
import { handOverBatch, offsetStorer, type HandOverContext } from './batch-handover';
import { clientErrorListener, isFatalClientError, type GroupClientHooks, type NativeGroupClient } from './native-clients';
import { toKafkaMessage, type NativeMessage } from './partition-consumer';
import { PartitionLanes } from './partition-lanes';
import type { Consumer, ConsumerRunConfig, TopicPartition, TopicPartitionOffset, TopicPartitions } from './types';

export interface GroupConsumerOptions {
  logger: Logger;
  /** librdkafka's max.poll.interval.ms: a member whose batch is in hand longer stops taking records, and so leaves its group. */
  maxPollIntervalMs: number;
  /** Most records of one partition a batch gets. */
  maxBatchSize: number;
  /** Offsets of records handed over are stored for librdkafka's automatic commits. */
  autoCommit: boolean;
  onRebalance?: (event: 'assigned' | 'revoked', partitions: TopicPartition[]) => void | Promise<void>;
  /** Called once when librdkafka says this consumer is unusable for good: its owner replaces it (GroupMember). */
  onFatal?: (error: unknown) => void;
}

/** librdkafka's codes for the two kinds of rebalance event. */
const ASSIGN_PARTITIONS = -175;
/** Longest a take waits for a record (a stop waits for it too). */
const TAKE_WAIT_MS = 100;
/** Longest the loop waits without a wake-up before it looks again (a stalled batch is judged by the clock). */
const IDLE_WAKE_MS = 1000;
/** How long after a failed take from the queue the loop asks again. */
const CONSUME_RETRY_MS = 100;
/** How long past the poll interval a stalled member waits before it takes records again (librdkafka has left the group by then). */
const STALL_MARGIN_MS = 1000;
/** How long the group's coordinator may take to say what the group committed. */
const COMMITTED_TIMEOUT_MS = 10_000;

export class GroupConsumer implements Consumer {
  private readonly native: NativeGroupClient;
  private readonly lanes: PartitionLanes;
  private readonly logger: Logger;
  private run_: ConsumerRunConfig | undefined;
  private loop: Promise<void> | undefined;
  private running = false;
  /** A wake-up (a lane drained, a seek or rebalance applied, stop) came since the loop last looked. */
  private signalled = false;
  private wake: (() => void) | undefined;
  private rebalancing: Promise<void> = Promise.resolve();
  /** A rebalance being applied: the loop takes nothing from librdkafka meanwhile. */
  private applyingRebalance = false;
  /** The take from librdkafka under way, if any, and when the last one began (epoch ms). */
  private take: Promise<unknown> | undefined;
  private lastTake = Date.now();
  /** Set once librdkafka said this consumer is unusable for good: it takes nothing more. */
  private failed = false;

  constructor(
    create: (hooks: GroupClientHooks) => NativeGroupClient,
    private readonly options: GroupConsumerOptions,
  ) {
    this.logger = options.logger;
    this.native = create({
      onRebalance: (error, assignment) => {
        this.rebalancing = this.rebalancing.then(() => this.rebalance(error.code === ASSIGN_PARTITIONS, assignment));
      },
    });
    const logged = clientErrorListener(this.logger);
    this.native.on('event.error', (error) => {
      logged(error);
      if (isFatalClientError(error)) this.failedForGood(error);
    });
    // A take waits in a thread of the pool up to TAKE_WAIT_MS for the first record, then returns what is there.
    this.native.setDefaultConsumeTimeout(TAKE_WAIT_MS);
    this.native.setDefaultIsTimeoutOnlyForFirstMessage(true);
    const handOverContext: HandOverContext = {
      runConfig: () => this.run_!,
      logger: this.logger,
      isRunning: () => this.running,
      ...(options.autoCommit ? { storeOffset: offsetStorer(this.native, this.logger) } : {}),
    };
    this.lanes = new PartitionLanes({
      native: this.native,
      logger: this.logger,
      maxBatchSize: options.maxBatchSize,
      takeDone: () => this.takeDone(),
      signal: () => this.signal(),
      handOver: (lane, batch, isStale) => handOverBatch(handOverContext, lane, batch, isStale),
    });
  }

  connect(): Promise<void> {
    return new Promise((resolve, reject) => this.native.connect({}, (error) => (error ? reject(asError(error)) : resolve())));
  }

  async disconnect(): Promise<void> {
    this.running = false;
    this.lanes.stop();
    this.signal();
    await this.loop;
    await this.lanes.settled();
    if (!this.native.isConnected()) return;
    // Leaving the group revokes the assignment: rebalance() runs (onRevoked, then unassign) meanwhile.
    await new Promise<void>((resolve) => this.native.disconnect(() => resolve()));
    await this.rebalancing;
  }

  subscribe(subscription: { topics: string[] }): Promise<void> {
    this.native.subscribe(subscription.topics);
    return Promise.resolve();
  }

  run(config: ConsumerRunConfig): Promise<void> {
    this.run_ = config;
    this.lanes.concurrency = Math.max(1, config.partitionsConsumedConcurrently ?? 1);
    this.running = true;
    this.loop = this.fetchLoop();
    return Promise.resolve();
  }

  commitOffsets(offsets: TopicPartitionOffset[]): Promise<void> {
    const native = offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: Number(o.offset) }));
    return new Promise((resolve, reject) => this.native.commitCb(native, (error) => (error ? reject(asError(error)) : resolve())));
  }

  /** read_committed: librdkafka asks for stable offsets (KIP-447), waiting out a transaction still open. */
  committed(partitions: TopicPartition[]): Promise<TopicPartitionOffset[]> {
    return new Promise((resolve, reject) =>
      this.native.committed(partitions, COMMITTED_TIMEOUT_MS, (error, offsets) => {
        if (error) return reject(asError(error));
        resolve(
          offsets.flatMap(({ topic, partition, offset }) =>
            offset !== undefined && offset >= 0 ? [{ topic, partition, offset: String(offset) }] : [],
          ),
        );
      }),
    );
  }

  seek(position: TopicPartitionOffset): void {
    this.lanes.seek(position.topic, position.partition, BigInt(position.offset));
  }

  pause(partitions: Array<{ topic: string; partitions?: number[] }>): void {
    this.lanes.pause(this.lanes.expand(partitions), true);
  }

  resume(partitions: Array<{ topic: string; partitions?: number[] }>): void {
    this.lanes.pause(this.lanes.expand(partitions), false);
  }

  paused(): TopicPartitions[] {
    return this.lanes.paused();
  }

  assignment(): TopicPartition[] {
    return this.lanes.assigned();
  }

  /** The native client, for a transactional producer's sendOffsets (KIP-447 needs the member's group metadata). */
  groupClient(): NativeGroupClient {
    return this.native;
  }

  /**
   * librdkafka said this consumer is unusable for good (a fatal error): it takes nothing more, and
   * its owner is told once, to replace it. Before, such a consumer asked again every 100 ms for as long
   * as the process lived, silently, and its partitions were read by no one.
   */
  private failedForGood(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.logger.error({ err: describeError(error) }, 'the consumer failed for good; it is replaced by a new one');
    this.options.onFatal?.(error);
  }

  /** Takes records from librdkafka into the partitions' lanes while running (see the file's header). */
  private async fetchLoop(): Promise<void> {
    while (this.running && !this.failed) {
      // Seeks and rebalances are applied between takes, so what a take returns is from before or after them, never both.
      if (this.lanes.full() || this.lanes.seeks > 0 || this.applyingRebalance || this.stalled()) {
        this.signalled = false;
        await this.idle();
        continue;
      }
      this.signalled = false;
      this.lastTake = Date.now();
      let messages: NativeMessage[];
      try {
        const take = new Promise<NativeMessage[]>((resolve, reject) =>
          this.native.consume(this.options.maxBatchSize, (error, taken) => (error ? reject(asError(error)) : resolve(taken))),
        );
        this.take = take.catch(() => undefined);
        messages = await take;
      } catch (error) {
        if (isFatalClientError(error)) this.failedForGood(error);
        else this.logger.debug({ err: describeError(error) }, 'consume failed; asking again');
        await sleep(CONSUME_RETRY_MS);
        continue;
      } finally {
        this.take = undefined;
      }
      this.lanes.add(messages.map(toKafkaMessage));
    }
  }

  /**
   * A batch in hand for longer than the poll interval: the member takes nothing more, so librdkafka
   * leaves the group, as a stuck Java consumer does, and its partitions go to members that work.
   * Once librdkafka must have left, the loop takes again: that serves the revocation, which makes
   * the stuck batch stale (it is handed back when it ends).
   */
  private stalled(): boolean {
    const since = this.lanes.oldestBusySince();
    const now = Date.now();
    const { maxPollIntervalMs } = this.options;
    return since !== undefined && now - since > maxPollIntervalMs && now - this.lastTake < maxPollIntervalMs + STALL_MARGIN_MS;
  }

  private async takeDone(): Promise<void> {
    await this.take;
  }

  /** Until a wake-up since the loop last looked, or IDLE_WAKE_MS. */
  private idle(): Promise<void> {
    if (this.signalled) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.signal(), IDLE_WAKE_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private signal(): void {
    this.signalled = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /**
   * A rebalance, one at a time. Assigned: the partitions get lanes and are fetched (not paused,
   * whatever they were before). Revoked: their batches become stale, the listener runs and the
   * batches in hand end, then librdkafka may rejoin (it waits for unassign()).
   */
  private async rebalance(assigned: boolean, partitions: TopicPartition[]): Promise<void> {
    this.applyingRebalance = true;
    try {
      await this.takeDone();
      if (assigned) {
        this.lanes.open(partitions);
        this.native.assign(partitions);
        if (partitions.length > 0) this.native.resume(partitions);
        await this.options.onRebalance?.('assigned', partitions);
      } else {
        this.lanes.revoke(partitions);
        await Promise.resolve(this.options.onRebalance?.('revoked', partitions)).catch((error: unknown) =>
          this.logger.warn({ err: describeError(error) }, 'revocation listener failed'),
        );
        await this.lanes.settled();
        this.lanes.close(partitions);
        this.native.unassign();
      }
    } catch (error) {
      // Only when the client is closing (assign on a closed client throws): nothing is left to do.
      this.logger.warn({ err: describeError(error) }, 'rebalance not applied');
    } finally {
      this.applyingRebalance = false;
    }
    this.signal();
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(JSON.stringify(error));
}
