/** When a supervised process is restarted, and when it is given up on. */
export interface RestartPolicyOptions {
  /** Consecutive fast crashes after which the process is given up on. Default 5. */
  maxFastCrashes?: number;
  /** A crash within this many ms of the process's start counts as fast. Default 60000 (the time a service has to become ready). */
  fastCrashWindowMs?: number;
  /** Wait before the first restart, in ms; doubled after every further fast crash. Default 500. */
  initialDelayMs?: number;
  /** Longest wait before a restart, in ms. Default 10000. */
  maxDelayMs?: number;
}

/** What to do after a crash. */
export type RestartDecision =
  { giveUp: false; delayMs: number; fastCrashes: number } | { giveUp: true; fastCrashes: number; windowMs: number };

/**
 * The rule `hookstream start` restarts by: a crashed process is started again after a backoff
 * (0.5 s, 1 s, 2 s, 4 s … up to 10 s), and given up on after 5 crashes in a row that each came
 * within 60 s of its start. A run that lasted longer than that proves the process can work: the
 * count starts again. A crash that is not the process's own fault (its broker was away) is not
 * counted at all.
 */
export class RestartPolicy {
  private readonly maxFastCrashes: number;
  private readonly fastCrashWindowMs: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private fastCrashes = 0;

  constructor(options: RestartPolicyOptions = {}) {
    this.maxFastCrashes = options.maxFastCrashes ?? 5;
    this.fastCrashWindowMs = options.fastCrashWindowMs ?? 60_000;
    this.initialDelayMs = options.initialDelayMs ?? 500;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
  }

  /** The rule in words, for messages: "5 crashes in a row, each within 60 s of its start". */
  describe(): string {
    return `${this.maxFastCrashes} crashes in a row, each within ${this.fastCrashWindowMs / 1000} s of its start`;
  }

  /** Records a crash after `ranMs` of running; `counted` false for a crash caused by something else (not held against it). */
  onCrash(ranMs: number, counted = true): RestartDecision {
    if (!counted) return { giveUp: false, delayMs: this.initialDelayMs, fastCrashes: this.fastCrashes };
    if (ranMs >= this.fastCrashWindowMs) this.fastCrashes = 0;
    else this.fastCrashes += 1;
    if (this.fastCrashes >= this.maxFastCrashes) {
      return { giveUp: true, fastCrashes: this.fastCrashes, windowMs: this.fastCrashWindowMs };
    }
    const doublings = Math.max(0, this.fastCrashes - 1);
    return { giveUp: false, delayMs: Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** doublings), fastCrashes: this.fastCrashes };
  }
}
