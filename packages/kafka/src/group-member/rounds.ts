/*
 * The rounds of the concurrent mode (ConcurrentRecords): at most every `intervalMs`, one transaction
 * of the member with what its partitions' records became since the last round and where each
 * partition resumes.
 */
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import { offsetsByTopic, type MemberTransactions } from './member-transactions';
import type { Consumer } from '../types';
import type { PartitionProgress } from './partition-progress';

export interface RoundsOptions {
  /** How long after a record is done its round is written. */
  intervalMs: number;
  /** Writes one round in one transaction (MemberTransactions.commit). */
  commit: MemberTransactions['commit'];
  logger: Logger;
  /** The partitions of the current assignment not being read again. */
  current: () => Iterable<PartitionProgress>;
  /** The member's client consumer, whose group metadata each transaction carries (KIP-447). */
  consumer: () => Consumer | undefined;
  /** A partition whose round failed: what it became since its last commit is lost, so it must be read again from there. */
  lost: (progress: PartitionProgress) => void;
  /** A partition whose round was written: what it did since its last commit is safe. */
  committed?: (progress: PartitionProgress) => void;
}

export class Rounds {
  private timer: NodeJS.Timeout | undefined;
  /** The round being written; rounds go one after another. */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly options: RoundsOptions) {}

  /** A record is done: a round within the interval. */
  soon(): void {
    this.timer ??= setTimeout(() => void this.now(), this.options.intervalMs);
  }

  /** A round after the one being written (on stop and rebalance: what is done is written before the partitions go). */
  now(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.round());
    return this.writing;
  }

  private async round(): Promise<void> {
    const consumer = this.options.consumer();
    if (!consumer) return;
    const taken = [...this.options.current()]
      .map((progress) => ({ progress, records: progress.outputs.splice(0), next: progress.resumeAt() }))
      .filter(({ progress, records, next }) => records.length > 0 || next > progress.committed);
    if (taken.length === 0) return;
    const offsets = offsetsByTopic(taken.map(({ progress, next }) => ({ topic: progress.topic, partition: progress.partition, next })));
    try {
      await this.options.commit(
        taken.flatMap((t) => t.records),
        offsets,
        consumer,
      );
      for (const { progress, next } of taken) {
        if (next > progress.committed) progress.committed = next;
        this.options.committed?.(progress);
      }
    } catch (error) {
      this.options.logger.warn(
        { partitions: taken.length, err: describeError(error) },
        'transaction failed; its partitions are read again from their last commit',
      );
      for (const { progress } of taken) this.options.lost(progress);
    }
  }
}
