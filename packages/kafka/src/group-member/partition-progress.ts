/* Where one partition of the concurrent mode (ConcurrentRecords) stands: its records in flight, its key chains, what is done and committed. */
import type { OutputRecord } from './member-transactions';
import type { KafkaMessage } from '../types';

/** In-flight records of one partition, what its records became, and the offset that may be committed. */
export class PartitionProgress {
  readonly pending = new Set<bigint>();
  readonly chains = new Map<string, Promise<void>>();
  highestStarted = -1n;
  /** What the records done since the last round became: written in the next. */
  readonly outputs: OutputRecord[] = [];
  /** Delay topics: records read but not yet due, in offset order (their offsets are in pending). */
  readonly held: KafkaMessage[] = [];
  /** Delay topics: the highest offset taken from a batch (started or held), so none is taken twice. */
  highestTaken = -1n;
  /** Delay topics: the running or last pass over the held records (passes go one after another). */
  drained: Promise<void> = Promise.resolve();
  /** The offset this member last committed for the partition (-1: none yet). */
  committed = -1n;
  /** A failure sent the consumer back to an earlier offset: this progress is finished. */
  rewound = false;
  private readonly waiters: Array<() => void> = [];

  /** `readFrom`: the first offset read, where the group's committed offset stood. */
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly generation: number,
    readonly readFrom: bigint,
  ) {}

  slotFreed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  wakeOne(): void {
    this.waiters.shift()?.();
  }

  wakeAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The lowest offset not yet done, at most `below`. */
  lowestUndone(below = this.highestStarted + 1n): bigint {
    let low = below;
    for (const offset of this.pending) if (offset < low) low = offset;
    return low;
  }

  /** Where the partition resumes once what is done is committed: its lowest offset not yet done, never below where it was first read. */
  resumeAt(): bigint {
    const started = this.highestStarted + 1n;
    return this.lowestUndone(started > this.readFrom ? started : this.readFrom);
  }

  /** Where its last commit left the partition: what reading it again starts from. */
  lastCommit(): bigint {
    return this.committed >= 0n ? this.committed : this.readFrom;
  }

  /** This progress is over (its records are read again from an earlier offset, here or by another member): nothing waits on it. */
  finish(): void {
    this.rewound = true;
    this.pending.clear();
    this.outputs.length = 0;
    this.wakeAll();
  }
}
