/* Where one partition of a ConcurrentConsumer stands: its records in flight, its key chains, what is committed. */
import type { KafkaMessage } from '../types';

/** In-flight records of one partition and the offset that may be committed. */
export class PartitionProgress {
  readonly pending = new Set<bigint>();
  readonly chains = new Map<string, Promise<void>>();
  highestStarted = -1n;
  /** Delay topics: records read but not yet due, in offset order (their offsets are in pending). */
  readonly held: KafkaMessage[] = [];
  /** Delay topics: the highest offset taken from a batch (started or held), so none is taken twice. */
  highestTaken = -1n;
  /** Delay topics: the running or last pass over the held records (passes go one after another). */
  drained: Promise<void> = Promise.resolve();
  committed = -1n;
  commitTimer: NodeJS.Timeout | undefined;
  /** A failure sent the consumer back to an earlier offset: this progress is finished. */
  rewound = false;
  private readonly waiters: Array<() => void> = [];

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly generation: number,
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

  /** The lowest offset not yet durably done, at most `below`: where reading again must start, and what may be committed. */
  lowestUndone(below = this.highestStarted + 1n): bigint {
    let low = below;
    for (const offset of this.pending) if (offset < low) low = offset;
    return low;
  }

  /** This progress is over (its records are read again from an earlier offset, here or by another member): nothing waits on it. */
  finish(): void {
    this.rewound = true;
    this.pending.clear();
    this.wakeAll();
  }
}
