/*
 * The failure path of the concurrent mode (ConcurrentRecords): a partition whose record or round
 * failed is read again from its last commit, after a pause, rather than in a hot loop while Kafka
 * or the registry is away. The pause doubles with each failure in a row (up to a cap) and is back
 * to its first length once a round commits what the partition did: reading again repeats the work of
 * every record since the last commit (the document-fetcher retrieves each of their documents
 * again), so a fixed short pause made a partner's document host serve hundreds of retrievals a
 * second for as long as Kafka refused the writes.
 */
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import type { Consumer, TopicPartitions } from '../types';
import type { PartitionProgress } from './partition-progress';

/** How long a partition rests after what became of its records could not be written: the first time. */
export const FAILURE_BACKOFF_MS = 1000;
/** The longest rest, after failures in a row: what the recovery after an outage may lag by. */
export const MAX_FAILURE_BACKOFF_MS = 16_000;

export interface RewindsOptions {
  logger: Logger;
  /** The member's client consumer, once it has one. */
  consumer: () => Consumer | undefined;
  stopping: () => boolean;
  /** Forgets where the partition stood (its held records too): what was done since its last commit is done again. */
  forget: (progress: PartitionProgress) => void;
}

export class Rewinds {
  /** Partitions resting after a failure, by topic/partition. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Failures in a row, by topic/partition: as many entries as partitions assigned. */
  private readonly failures = new Map<string, number>();

  constructor(private readonly options: RewindsOptions) {}

  /** Reads a partition again from its last commit, after a pause: what was done since is done again. */
  rewind(progress: PartitionProgress): void {
    const id = `${progress.topic}/${progress.partition}`;
    const partition = [{ topic: progress.topic, partitions: [progress.partition] }];
    this.options.forget(progress);
    progress.finish();
    const consumer = this.options.consumer();
    try {
      consumer?.seek({ topic: progress.topic, partition: progress.partition, offset: String(progress.lastCommit()) });
      // A second before reading again, rather than a hot loop while Kafka or the registry is away.
      consumer?.pause(partition);
    } catch (error) {
      // No longer assigned: its next owner reads it from the last commit.
      this.options.logger.info(
        { topic: progress.topic, partition: progress.partition, err: describeError(error) },
        'partition not rewound',
      );
      return;
    }
    const failures = Math.min((this.failures.get(id) ?? 0) + 1, 16);
    this.failures.set(id, failures);
    clearTimeout(this.timers.get(id));
    this.timers.set(
      id,
      setTimeout(
        () => {
          this.timers.delete(id);
          this.resumeQuietly(partition);
        },
        Math.min(FAILURE_BACKOFF_MS * 2 ** (failures - 1), MAX_FAILURE_BACKOFF_MS),
      ).unref(),
    );
  }

  /** What the partition did was committed: its next failure rests the shortest time again. */
  recovered(topic: string, partition: number): void {
    if (this.failures.size > 0) this.failures.delete(`${topic}/${partition}`);
  }

  /** Resumes a partition from a timer: the consumer may have stopped meanwhile (the client then throws). */
  resumeQuietly(partitions: TopicPartitions[]): void {
    if (this.options.stopping()) return;
    try {
      this.options.consumer()?.resume(partitions);
    } catch (error) {
      this.options.logger.warn({ err: describeError(error) }, 'partition not resumed');
    }
  }

  /** The rests under way end (a rebalance or a stop): a partition assigned again is read from its committed offset. */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.failures.clear();
  }
}
