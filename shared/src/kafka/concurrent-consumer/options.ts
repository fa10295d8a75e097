/* What a ConcurrentConsumer is given: its group, topics and fetch settings, and what it does with each record. */
import type { ManualCommitConsumerOptions } from '../manual-commit-consumer';
import type { OutputRecord } from '../member-transactions';
import type { KafkaMessage } from '../types';

/** One record read, and where from. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/** The group, its session, its topics and fetch settings as for startManualCommitConsumer; then what is done with each record. */
export interface ConcurrentConsumerOptions extends Omit<
  ManualCommitConsumerOptions,
  'partitionsConsumedConcurrently' | 'eachBatch' | 'onAssigned' | 'onRevoked'
> {
  /** Partitions whose batches are handled side by side. Default 32. */
  partitionsConsumedConcurrently?: number;
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
  /** Topics whose records each wait until due (delay topics, e.g. retry tiers), and when that is (epoch ms). */
  delayed?: { topics: readonly string[]; dueAt: (topic: string, message: KafkaMessage) => number };
  /** Partitions of delay topics holding records until due (paused once they hold their limit), whenever that count changes. */
  onPausedPartitions?: (count: number) => void;
  now?: () => number;
}
