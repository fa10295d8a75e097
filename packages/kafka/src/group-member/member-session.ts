/*
 * One group of a GroupMember on the native consumer (GroupConsumer, the librdkafka adapter):
 * connected, subscribed and running, with the settings every mode shares, and the per-partition
 * state hooks applied around the mode's batches. Internal to group-member/.
 */
import type { Consumer, EachBatchPayload, TopicPartition } from '../types';
import type { FetchSettings, GroupMemberOptions, PartitionState } from './options';

export interface MemberSessionOptions extends Pick<GroupMemberOptions, 'kafka' | 'logger' | 'groupId' | 'session' | 'topics'> {
  fetch?: FetchSettings;
  /**
   * Automatic commits of each handled batch's offsets (the batches mode); otherwise the mode
   * resolves each offset itself and commits it itself (a transaction, or a watermark of records done).
   */
  autoCommit: boolean;
  partitionsConsumedConcurrently: number;
  eachBatch: (payload: EachBatchPayload) => Promise<void>;
  partitionState?: PartitionState;
  /** Called when the group gives this member its partitions (a join, maybe with none). */
  onAssigned?: (partitions: TopicPartition[]) => void;
  /** Called when a rebalance takes this member's partitions; the rebalance waits for its promise. */
  onRevoked?: (partitions: TopicPartition[]) => Promise<void>;
  /** Called once when the consumer is unusable for good: the member's owner stops it and joins again. */
  onFatal?: () => void;
}

/** A running group member, and whether it holds an assignment now (not rebalancing or stopped). */
export interface MemberSession {
  readonly consumer: Consumer;
  readonly joined: boolean;
  /** Waits for the batches in hand, leaves the group and disconnects. */
  stop(): Promise<void>;
}

/**
 * A member that is connected, subscribed and running when this resolves (it joins its group in
 * the background). read_committed (the topics read may be written in transactions), from the
 * beginning when the group has no offset. A rejected batch is read again from its first record
 * not resolved.
 */
export async function joinGroup(options: MemberSessionOptions): Promise<MemberSession> {
  const logger = options.logger.child({ module: 'consumer', groupId: options.groupId });
  const state = options.partitionState ? new PartitionStates(options.partitionState) : undefined;
  let joined = false;
  const consumer = options.kafka.consumer({
    groupId: options.groupId,
    readUncommitted: false,
    fromBeginning: true,
    autoCommit: options.autoCommit,
    ...options.session,
    ...options.fetch,
    ...(options.onFatal ? { onFatal: options.onFatal } : {}),
    onRebalance: async (event, partitions) => {
      logger.info({ event, partitions: partitions.length }, 'rebalance');
      joined = event === 'assigned';
      if (event === 'assigned') {
        state?.assigned(partitions);
        options.onAssigned?.(partitions);
      } else {
        await options.onRevoked?.(partitions);
        await state?.revoked(partitions);
      }
    },
  });
  await consumer.connect();
  await consumer.subscribe({ topics: options.topics });
  await consumer.run({
    eachBatchAutoResolve: options.autoCommit,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
    eachBatch: state ? (payload) => state.around(payload, options.eachBatch) : options.eachBatch,
  });
  return {
    consumer,
    get joined() {
      return joined;
    },
    stop: async () => {
      joined = false;
      await consumer.disconnect();
    },
  };
}

/** The partition-state hooks' bookkeeping: the restore under way per partition, and its batch in hand. */
class PartitionStates {
  private readonly restoring = new Map<string, Promise<void>>();
  /** The native consumer hands over one batch of a partition at a time: this is it, settled either way. */
  private readonly inHand = new Map<string, Promise<void>>();

  constructor(private readonly hooks: PartitionState) {}

  /** Restores start at once, side by side; each partition's first batch waits only for its own. */
  assigned(partitions: TopicPartition[]): void {
    for (const partition of partitions) {
      this.restoring.delete(key(partition));
      void this.restored(partition).catch(() => undefined);
    }
  }

  /**
   * A rebalance waits for the batches in hand (they are stale by now) and for restores still under
   * way (an idle partition's may be): the state is dropped only after both, so no restore outlives
   * its assignment or lands after a later one.
   */
  async revoked(partitions: TopicPartition[]): Promise<void> {
    await Promise.all(
      partitions.flatMap((partition) => [
        this.inHand.get(key(partition)) ?? Promise.resolve(),
        (this.restoring.get(key(partition)) ?? Promise.resolve()).catch(() => undefined),
      ]),
    );
    for (const partition of partitions) {
      this.restoring.delete(key(partition));
      this.hooks.drop(partition);
    }
  }

  async around(payload: EachBatchPayload, eachBatch: (payload: EachBatchPayload) => Promise<void>): Promise<void> {
    const partition = { topic: payload.batch.topic, partition: payload.batch.partition };
    // Revoked already: a restore now would outlive the assignment (and its drop).
    if (payload.isStale()) return;
    const id = key(partition);
    // A restore may move the partition (a seek to where its state says it stands): the batch
    // fetched before is then stale, and the records from the new position come as the next one.
    const run = this.restored(partition).then(() => (payload.isStale() ? undefined : eachBatch(payload)));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.inHand.set(id, settled);
    try {
      await run;
    } finally {
      if (this.inHand.get(id) === settled) this.inHand.delete(id);
    }
  }

  /** The partition's restore: the one under way or done, or a new one after a failed one. */
  private restored(partition: TopicPartition): Promise<void> {
    const id = key(partition);
    let restore = this.restoring.get(id);
    if (!restore) {
      const started = Promise.resolve().then(() => this.hooks.restore(partition));
      restore = started;
      this.restoring.set(id, started);
      started.catch(() => {
        if (this.restoring.get(id) === started) this.restoring.delete(id);
      });
    }
    return restore;
  }
}

function key(partition: TopicPartition): string {
  return `${partition.topic}/${partition.partition}`;
}
