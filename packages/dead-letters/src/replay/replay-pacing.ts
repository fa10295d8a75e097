import { sleep } from '@hookstream/runtime';

/**
 * Paces re-queued records at a fixed rate (--rate N/s): record i (0-based) is not written before
 * `start + i / rate`. What is due when the writer comes back goes in one transaction, so a
 * transaction's own time does not lower the rate and records are never bunched ahead of time:
 * over any span, at most rate × span + 1 records go out.
 */
export class ReplayPacing {
  private started: number | undefined;
  private taken = 0;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
    private readonly wait: (ms: number) => Promise<void> = sleep,
  ) {}

  /** When record `index` may be written (epoch ms). */
  private dueAt(index: number): number {
    return this.started! + (index * 1000) / this.perSecond;
  }

  /** Waits until the next record is due; resolves with how many are due by then (1 to `max`). */
  async take(max: number): Promise<number> {
    this.started ??= this.now();
    const wait = this.dueAt(this.taken) - this.now();
    if (wait > 0) await this.wait(wait);
    const now = this.now();
    let count = 1;
    while (count < max && this.dueAt(this.taken + count) <= now) count++;
    this.taken += count;
    return count;
  }
}
