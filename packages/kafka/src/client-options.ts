/* What a client's consumers and producers are made for: the settings librdkafka-settings.ts turns into librdkafka's. */
import type { TopicPartition } from './types';

/** A consumer-group member's settings. */
export interface ConsumerOptions {
  groupId: string;
  /** Read records of open and aborted transactions too. Default false (read_committed). */
  readUncommitted?: boolean;
  /** Where a partition the group has no offset for is read from. Default false (its end). */
  fromBeginning?: boolean;
  /** Commit read positions every few seconds by itself. Default false: the caller commits. */
  autoCommit?: boolean;
  /** Default 10 s. */
  sessionTimeoutMs?: number;
  /** Default 1 s. */
  heartbeatIntervalMs?: number;
  /**
   * Static membership (KIP-345): a member that comes back under the same id within the session
   * takes its partitions back at once, with no rebalance and no wait for the old session to end
   * (a replica killed and restarted). Unique per replica; unset for dynamic membership.
   */
  groupInstanceId?: string;
  /** How long a rebalance waits for members, and the longest a member may go between polls. Default 300 s. */
  rebalanceTimeoutMs?: number;
  /** Longest a fetch waits on the broker for `minBytes`. Default 100 ms. */
  maxWaitMs?: number;
  minBytes?: number;
  maxBytesPerPartition?: number;
  /**
   * Most kilobytes of records librdkafka fetches ahead into its queue, all partitions together
   * (queued.max.messages.kbytes; a fetch may overshoot it by one response). Default librdkafka's, 64 MB.
   */
  maxQueuedKBytes?: number;
  /** Most records of one partition an `eachBatch` call gets. Default 500. */
  maxBatchSize?: number;
  /**
   * Called when the group assigns this member partitions (a join; `partitions` may be empty) or
   * revokes them (a rebalance begins); the rebalance waits for a returned promise.
   */
  onRebalance?: (event: 'assigned' | 'revoked', partitions: TopicPartition[]) => void | Promise<void>;
  /** Called once when the consumer is unusable for good (a fatal error, e.g. fenced as a static member): replace it. */
  onFatal?: (error: unknown) => void;
}

/** What a producer is for; every producer is idempotent with acks=all and the Java client's murmur2 partitioner. */
export interface ProducerOptions {
  /** Makes it transactional under this id: opening it fences the id's earlier holders and aborts what they left open. */
  transactionalId?: string;
  /** Longest a record waits for companions before its batch is sent. Default librdkafka's, 5 ms. */
  lingerMs?: number;
  /** Longest a record may take to be acknowledged, retries included, before its send fails. Default 30 s. */
  deliveryTimeoutMs?: number;
  /** Transactional producers: how long the coordinator lets a transaction stay open before aborting it. Default 60 s. */
  transactionTimeoutMs?: number;
  /** Largest record batch it builds (the topics' `max.message.bytes` when that is lower than the client's 1 MB). */
  maxBatchBytes?: number;
}
