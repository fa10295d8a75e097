/*
 * The two consumer groups of a service with retry tiers (the callback-sender, the
 * document-fetcher): one reads the topic its records are first read from, the other the tiers.
 * Both hand each record to the same `handle`, through shared's ConcurrentConsumer (order per key,
 * concurrency across keys, commits at the lowest record in flight, a tier record held until due).
 */
import type { Logger } from 'pino';
import type { Kafka } from '../kafka/client';
import { ConcurrentConsumer, type ConcurrentConsumerOptions } from '../kafka/concurrent-consumer';
import type { GroupSession } from '../kafka/consumer';
import type { RetryTiers } from './retry-tiers';

export interface TieredConsumersOptions {
  kafka: Kafka;
  logger: Logger;
  /** The first topic's group; the tiers' is `<groupId>-retries`. */
  groupId: string;
  /** Session and heartbeat of the group members (they bound failover after a crash). */
  session: GroupSession;
  /** The topic records are first read from (callback-requests, partner-events). */
  topic: string;
  tiers: RetryTiers;
  /** Records in flight per partition. */
  partitionConcurrency: number;
  /** Does what a record is for and resolves with what became of it (see ConcurrentConsumerOptions). */
  handle: ConcurrentConsumerOptions['handle'];
  /** Runs on each batch of the first topic before its records start (see ConcurrentConsumerOptions); the tiers' batches are not given to it. */
  beforeFirstBatch?: ConcurrentConsumerOptions['beforeBatch'];
  /** Longest a fetch of the first topic waits for records. Default 100 ms. */
  maxWaitMs?: number;
  /** Tier partitions holding records until due, whenever that count changes. */
  onPausedPartitions?: (count: number) => void;
  now?: () => number;
}

/** A consumer group and what it reads: what lag is watched on. */
export interface GroupTopics {
  groupId: string;
  topics: string[];
}

/**
 * Two groups rather than one: the tiers' partitions are idle nearly always and paused while their
 * records wait, so they get a fetch loop of their own, and the first topic's fetches carry only its
 * records. A tier record waits seconds at least: a longer fetch wait there (250 ms) costs it
 * nothing noticeable, and smaller fetches bound what a paused partition holds in memory.
 */
export class TieredConsumers {
  readonly groups: readonly [GroupTopics, GroupTopics];
  private readonly first: ConcurrentConsumer;
  private readonly retries: ConcurrentConsumer;
  private readonly now: () => number;

  constructor(private readonly options: TieredConsumersOptions) {
    const { kafka, session, partitionConcurrency, handle, tiers } = options;
    this.now = options.now ?? Date.now;
    this.groups = [
      { groupId: options.groupId, topics: [options.topic] },
      { groupId: `${options.groupId}-retries`, topics: tiers.topics },
    ];
    const common = {
      ...{ kafka, session, partitionConcurrency, handle, delayed: tiers.delayed, now: this.now },
      ...(options.onPausedPartitions ? { onPausedPartitions: options.onPausedPartitions } : {}),
    };
    const [first, retries] = this.groups;
    this.first = new ConcurrentConsumer({
      ...common,
      ...first,
      logger: options.logger.child({ reads: options.topic }),
      fetch: { maxWaitMs: options.maxWaitMs ?? 100 },
      ...(options.beforeFirstBatch ? { beforeBatch: options.beforeFirstBatch } : {}),
    });
    this.retries = new ConcurrentConsumer({
      ...common,
      ...retries,
      logger: options.logger.child({ reads: 'retry-tiers' }),
      fetch: { maxWaitMs: 250, maxBytesPerPartition: 64 * 1024 },
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.first.start(), this.retries.start()]);
  }

  /** True while both groups have this replica as a member with an assignment (false while one rejoins). */
  get joined(): boolean {
    return this.first.joined && this.retries.joined;
  }

  /** No new records start; those in flight finish and are committed, or once `handBack` is aborted are left uncommitted for the next owner. */
  async stop(handBack?: AbortSignal): Promise<void> {
    await Promise.all([this.first.stop(handBack), this.retries.stop(handBack)]);
  }

  /**
   * Per retry tier (1-based), how long its earliest record held until due is past its due time, in
   * seconds; 0 when none is (every tier is listed). A held record is started the moment it is due
   * unless its partition has no free slot, so a tier only falls behind when the service cannot keep up.
   */
  retryOverdueSeconds(): Map<number, number> {
    const dueTimes = this.retries.heldDueTimes();
    const now = this.now();
    return new Map(this.options.tiers.topics.map((topic, i) => [i + 1, Math.max(0, now - (dueTimes.get(topic) ?? now)) / 1000]));
  }
}
