/* What a GroupMember is given: its group, session, topics and fetch settings, and its mode (what it does with what it reads). */
import type { Kafka } from '../client';
import type { Logger } from 'pino';
import type { RetryTiers } from '../retry-tiers/retry-tiers';
import type { ConsumerOptions } from '../client-options';
import type { Batch, KafkaMessage, TopicPartition } from '../types';
import type { OutputRecord } from './member-transactions';

/** How a fetch waits and how much it brings (the client's defaults where unset). */
export type FetchSettings = Pick<ConsumerOptions, 'maxWaitMs' | 'minBytes' | 'maxBytesPerPartition' | 'maxQueuedKBytes' | 'maxBatchSize'>;

/** A consumer-group member's session settings (see KAFKA_SESSION_TIMEOUT_MS in config.ts). */
export interface GroupSession {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** See ConsumerOptions.rebalanceTimeoutMs. */
  rebalanceTimeoutMs?: number;
  /** See ConsumerOptions.groupInstanceId. */
  groupInstanceId?: string;
}

/** The session settings of a service's config. */
export function groupSessionOf(config: {
  KAFKA_SESSION_TIMEOUT_MS: number;
  KAFKA_HEARTBEAT_INTERVAL_MS: number;
  KAFKA_GROUP_INSTANCE_ID?: string;
}): GroupSession {
  return {
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: config.KAFKA_HEARTBEAT_INTERVAL_MS,
    ...(config.KAFKA_GROUP_INSTANCE_ID ? { groupInstanceId: config.KAFKA_GROUP_INSTANCE_ID } : {}),
  };
}

/** One record read, and where from. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/**
 * State a member keeps per partition it owns. Kept here rather than by each user so that the
 * member's rebalance order holds for it: restored before the partition's first record is handled,
 * dropped only once the partition's batches in hand have ended.
 */
export interface PartitionState {
  /** The group assigned the partition: its first batch waits for this. A rejection reads the batch again, and restores again first. */
  restore: (partition: TopicPartition) => Promise<void>;
  /** The partition was revoked (or the member stops), after its batches in hand ended. */
  drop: (partition: TopicPartition) => void;
}

/** Each batch handled in turn per partition; its offsets are committed automatically (every few seconds) once it is handled. A rejection reads it again. */
export interface BatchesMode {
  kind: 'batches';
  handle: (batch: Batch) => Promise<void>;
}

/** Consume-transform-produce, exactly once: what each batch becomes is written with its offsets in the member's transactions (KIP-447). */
export interface TransactionalMode {
  kind: 'transactional';
  /**
   * What a batch becomes. `current()` turns false once the batch is no longer this member's to
   * handle (stopping, or its partition revoked): the batch may then end early, and is handed back.
   * A rejection (Kafka or the registry unavailable) reads the batch again.
   */
  transform: (batch: Batch, current: () => boolean) => Promise<OutputRecord[]>;
  /** Largest record batch written: the output topics' `max.message.bytes`. */
  maxBatchBytes?: number;
  /** How long a member's crash may leave its transaction open (the group's partitions wait for it). Default 10 s. */
  transactionTimeoutMs?: number;
  /** Each committed transaction's duration and how many partitions' batches it carried. */
  onCommitted?: (seconds: number, batches: number) => void;
}

/** Each record handed to `handle` concurrently (in offset order per key); what they became written in the member's transactions, in rounds. */
export interface ConcurrentMode {
  kind: 'concurrent';
  /** Records in flight per partition; a batch waits for a slot beyond that (librdkafka heartbeats meanwhile). */
  partitionConcurrency: number;
  /**
   * Does what the record is for and resolves with what became of it: the records to write. They
   * are written in the member's next transaction, with the offsets its group resumes from. A
   * rejection means it could not be done now (Kafka or the registry unavailable): the partition
   * is read again from its last commit, after a pause.
   */
  handle: (record: ConsumedRecord) => Promise<OutputRecord[]>;
  /**
   * Runs on each batch of a topic that is not a delay topic before any of its records starts (e.g.
   * the callback-sender records the batch's policy versions, so that its own records are judged
   * against them). A rejection is a record's: the partition is read again from its last commit.
   */
  beforeBatch?: (batch: { topic: string; partition: number; messages: readonly KafkaMessage[] }) => Promise<void>;
  /**
   * How long after a record is done what it became is written (with the others' of that time, in one
   * transaction). Default 500 ms: each transaction costs the broker four requests and a marker per
   * partition, whatever it carries (docs/benchmarks.md); a crash repeats what was done since.
   */
  roundIntervalMs?: number;
  /** Topics whose records each wait until due (delay topics), and when that is (epoch ms). With `tiers`, the tiers'. */
  delayed?: { topics: readonly string[]; dueAt: (topic: string, message: KafkaMessage) => number };
  /**
   * Retry tiers: the member then reads `topics` in its group and the tiers in `<groupId>-retries`
   * (see group-member.ts), holding each tier record until due; `beforeBatch` runs on `topics` only.
   */
  tiers?: RetryTiers;
  /** Partitions of delay topics holding records until due (paused once they hold their limit), whenever that count changes. */
  onPausedPartitions?: (count: number) => void;
  now?: () => number;
}

export type GroupMemberMode = BatchesMode | TransactionalMode | ConcurrentMode;

export interface GroupMemberOptions {
  kafka: Kafka;
  logger: Logger;
  groupId: string;
  /** Session and heartbeat of the group member (they bound failover after a crash). */
  session: GroupSession;
  topics: string[];
  fetch?: FetchSettings;
  /** Partitions whose batches are handled side by side. Default 32 in concurrent mode, else 1. */
  partitionsConsumedConcurrently?: number;
  /**
   * Batches and transactional modes only (refused in concurrent mode, whose records outlive the
   * batch that started them, so a drop after the batch would not wait for them). A restore may
   * seek the partition (batches mode: GroupMember.seek); the batch fetched before is then skipped.
   */
  partitionState?: PartitionState;
  mode: GroupMemberMode;
}

/** The options of one of the member's groups with its mode settled (what each mode's internals are given). */
/** A mode's options: the member's, its mode, and what to call when its consumer fails for good (GroupMember replaces it). */
export type MemberGroupOptions<M extends GroupMemberMode> = Omit<GroupMemberOptions, 'mode'> & { mode: M; onFatal?: () => void };
