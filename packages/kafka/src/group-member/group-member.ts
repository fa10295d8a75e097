/*
 * The one consumer-group member of Hookstream: every service that reads a topic in a group does
 * it through a GroupMember, in one of its modes (options.ts). Underneath is the native consumer
 * (GroupConsumer, the librdkafka adapter), one per group the member belongs to.
 */
import { describeError } from '@hookstream/errors';
import { sleep } from '@hookstream/runtime';
import type { GroupTopics } from '../consumer-lag';
import type { TopicPartition, TopicPartitionOffset } from '../types';
import { inBatchSpan } from '../record-trace';
import { ConcurrentRecords } from './concurrent-records';
import { joinGroup, type MemberSession } from './member-session';
import type { BatchesMode, ConcurrentMode, FetchSettings, GroupMemberOptions, MemberGroupOptions } from './options';
import { TransactionalBatches } from './transactional-batches';

/**
 * The tiers' group's fetches (see the class's comment). librdkafka fetches ahead up to 64 MB by
 * default, whatever waits in the tiers; 2 MB here. With 100,000 callbacks and 100,000 documents
 * not yet due in the tiers (6 partitions each), the callback-sender's RSS after 45 s fell from
 * 618 MB to 522 and 548 MB (two runs), the document-fetcher's from 446 to 391 and 392 MB (npm run
 * bench:retry-backlog, 2026-11-29, docs/benchmarks.md). What remains above an empty backlog's
 * ~205 MB is the records held until due (MAX_HELD_PER_PARTITION per partition): the same with 1,000,000.
 */
export const TIER_FETCH: FetchSettings = { maxWaitMs: 250, maxBytesPerPartition: 64 * 1024, maxQueuedKBytes: 2 * 1024 };

/** What each of a member's groups is, whatever its mode. */
interface MemberGroup {
  start(): Promise<void>;
  stop(handBack?: AbortSignal): Promise<void>;
  readonly joined: boolean;
}

/**
 * A member of one consumer group (two with retry tiers): started, it joins in the background;
 * `joined` says whether it holds an assignment now; stopped, it hands back or finishes what it
 * holds and leaves. Per-partition state (`partitionState`) is restored before a partition's first
 * batch and dropped once a revocation's batches in hand have ended; a rebalance waits for them.
 *
 * With `tiers` (concurrent mode), two groups rather than one: the tiers' partitions are idle nearly
 * always and paused while their records wait, so they get a fetch loop of their own
 * (`<groupId>-retries`), and the first topic's fetches carry only its records. A tier record waits
 * seconds at least: a longer fetch wait there (250 ms) costs it nothing noticeable, and smaller
 * fetches and a small queue ahead (TIER_FETCH) bound what the tiers' backlog puts in memory.
 */
export class GroupMember {
  /** The groups this member belongs to and what each reads: what lag is watched on. */
  readonly groups: readonly GroupTopics[];
  private readonly memberships: MemberGroup[];
  private readonly batches: HandledBatches | undefined;
  private readonly retries: ConcurrentRecords | undefined;
  private readonly now: () => number;
  /** Groups whose consumer failed for good, being left and joined again with a new one. */
  private readonly replacing = new Map<MemberGroup, Promise<void>>();
  private stopping = false;
  private readonly options: GroupMemberOptions;

  constructor(options: GroupMemberOptions) {
    // Each group's consumer, should it fail for good, is replaced: see replace().
    const replaced = (index: number) => () => this.replace(this.memberships[index]!);
    this.options = options;
    const { mode } = options;
    if (mode.kind === 'concurrent' && options.partitionState) throw new Error('partitionState is for the batches and transactional modes');
    this.now = (mode.kind === 'concurrent' ? mode.now : undefined) ?? Date.now;
    this.groups = [{ groupId: options.groupId, topics: options.topics }];
    if (mode.kind === 'batches') {
      this.batches = new HandledBatches({ ...options, mode, onFatal: replaced(0) });
      this.memberships = [this.batches];
    } else if (mode.kind === 'transactional') {
      this.memberships = [new TransactionalBatches({ ...options, mode, onFatal: replaced(0) })];
    } else if (!mode.tiers) {
      this.memberships = [new ConcurrentRecords({ ...options, mode, onFatal: replaced(0) })];
    } else {
      const tiers = mode.tiers;
      const retries = { groupId: `${options.groupId}-retries`, topics: tiers.topics };
      this.groups = [...this.groups, retries];
      const first = new ConcurrentRecords({
        ...options,
        logger: options.logger.child({ reads: options.topics.join(',') }),
        fetch: { maxWaitMs: 100, ...options.fetch },
        mode: { ...mode, delayed: tiers.delayed },
        onFatal: replaced(0),
      });
      this.retries = new ConcurrentRecords({
        ...options,
        ...retries,
        logger: options.logger.child({ reads: 'retry-tiers' }),
        fetch: TIER_FETCH,
        mode: { ...tierMode(mode), delayed: tiers.delayed },
        onFatal: replaced(1),
      });
      this.memberships = [first, this.retries];
    }
  }

  async start(): Promise<void> {
    this.stopping = false;
    await Promise.all(this.memberships.map((group) => group.start()));
  }

  /** True while this replica is a member of each of its groups with an assignment (false while one rejoins). */
  get joined(): boolean {
    return this.memberships.every((group) => group.joined);
  }

  /**
   * Fetches nothing more and leaves the group(s). The batches in hand are finished (and committed)
   * or handed back; in concurrent mode the records in flight finish and are committed, or once
   * `handBack` is aborted (by default after 10 s) are left uncommitted for the next owner.
   */
  async stop(handBack?: AbortSignal): Promise<void> {
    this.stopping = true;
    await Promise.all(this.replacing.values());
    await Promise.all(this.memberships.map((group) => group.stop(handBack)));
  }

  /**
   * A group whose consumer librdkafka says is unusable for good (fenced as a static member after its
   * coordinator restarted: librdkafka#3437) is left and joined again with a new consumer, under the
   * same group.instance.id, which takes the membership back. Until then `joined` is false (the
   * service is not ready). Before, the dead consumer stayed: seen as a callback-sender that delivered
   * nothing after a broker restart, for good, while it answered ready.
   */
  private replace(group: MemberGroup): void {
    if (this.stopping || this.replacing.has(group)) return;
    const logger = this.options.logger;
    const replaced = (async () => {
      for (let attempt = 1; !this.stopping; attempt++) {
        try {
          await group.stop();
          if (this.stopping) return;
          await group.start();
          logger.warn({ attempt }, 'the consumer that failed for good was replaced: the group is joined again');
          return;
        } catch (error) {
          logger.warn({ attempt, err: describeError(error) }, 'the group is not joined again yet; trying again');
          await sleep(Math.min(10_000, 500 * attempt));
        }
      }
    })().finally(() => this.replacing.delete(group));
    this.replacing.set(group, replaced);
  }

  /** Batches mode only: the partitions this member owns now. */
  assignment(): TopicPartition[] {
    return this.batches?.assignment() ?? [];
  }

  /** Batches mode only (the other modes track their partitions' offsets themselves): reads a partition again from `offset`. */
  seek(position: TopicPartitionOffset): void {
    if (!this.batches) throw new Error('GroupMember.seek is for the batches mode');
    this.batches.seek(position);
  }

  /**
   * With tiers: per retry tier (1-based), how long its earliest record held until due is past its
   * due time, in seconds; 0 when none is (every tier is listed). A held record is started the
   * moment it is due unless its partition has no free slot, so a tier only falls behind when the
   * service cannot keep up. Without tiers, empty.
   */
  retryOverdueSeconds(): Map<number, number> {
    const { mode } = this.options;
    if (!this.retries || mode.kind !== 'concurrent' || !mode.tiers) return new Map();
    const dueTimes = this.retries.heldDueTimes();
    const now = this.now();
    return new Map(mode.tiers.topics.map((topic, i) => [i + 1, Math.max(0, now - (dueTimes.get(topic) ?? now)) / 1000]));
  }
}

/** The batches mode: each batch handled in turn per partition, its offsets committed automatically once handled. */
class HandledBatches implements MemberGroup {
  private session: MemberSession | undefined;

  constructor(private readonly options: MemberGroupOptions<BatchesMode>) {}

  async start(): Promise<void> {
    const { kafka, logger, groupId, session, topics, fetch, partitionState, mode } = this.options;
    this.session = await joinGroup({
      ...(this.options.onFatal ? { onFatal: this.options.onFatal } : {}),
      ...{ kafka, logger, groupId, session, topics, autoCommit: true },
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 1,
      ...(fetch ? { fetch } : {}),
      ...(partitionState ? { partitionState } : {}),
      eachBatch: ({ batch }) => inBatchSpan(batch, () => mode.handle(batch)),
    });
  }

  get joined(): boolean {
    return this.session?.joined ?? false;
  }

  async stop(): Promise<void> {
    await this.session?.stop();
    this.session = undefined;
  }

  assignment(): TopicPartition[] {
    return this.session?.consumer.assignment() ?? [];
  }

  seek(position: TopicPartitionOffset): void {
    if (!this.session) throw new Error('GroupMember.seek before start() resolved');
    this.session.consumer.seek(position);
  }
}

/** The tiers' group's mode: the first topic's, but `beforeBatch` is for the first topic's batches only. */
function tierMode(mode: ConcurrentMode): ConcurrentMode {
  const tiers: ConcurrentMode = { ...mode };
  delete tiers.beforeBatch;
  delete tiers.tiers;
  return tiers;
}
