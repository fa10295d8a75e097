/*
 * Runs the notifications' evaluator and sender on a timer in every replica (docs/notifications.md):
 * each pass judges the subscribed partners, then sends what is due. While PostgreSQL is away a pass
 * fails at once: the next waits twice as long each time, up to a minute, so nothing spins on a
 * store that is down; the first pass that works goes back to the interval. A full batch sent means
 * more may be due: the next pass comes at once, and only sends (a backlog drains without judging
 * every partner again in between: the evaluation runs at its interval only).
 */
import type { Logger } from '@hookstream/runtime';

export interface NotificationLoopOptions {
  evaluate: () => Promise<unknown>;
  send: () => Promise<{ claimed: number; batch: number }>;
  logger: Logger;
  /** Between passes, in ms; also the least time between two evaluations. */
  intervalMs: number;
  /** The clock, in ms (default Date.now). */
  now?: () => number;
}

/** The longest wait between passes while they fail. */
const MAX_BACKOFF_MS = 60_000;

export class NotificationLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;
  private failures = 0;
  /** When the last evaluation that worked began; undefined before the first. */
  private evaluatedAt: number | undefined;

  constructor(private readonly options: NotificationLoopOptions) {}

  start(): Promise<void> {
    this.stopped = false;
    this.failures = 0;
    this.schedule(0);
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: judge (when its interval has passed since the last), then send; the wait before the next. */
  async pass(): Promise<number> {
    try {
      const now = (this.options.now ?? Date.now)();
      if (this.evaluatedAt === undefined || now - this.evaluatedAt >= this.options.intervalMs) {
        await this.options.evaluate();
        this.evaluatedAt = now;
      }
      const sent = await this.options.send();
      this.failures = 0;
      return sent.claimed >= sent.batch ? 0 : this.options.intervalMs;
    } catch (error) {
      this.failures += 1;
      const waitMs = Math.min(MAX_BACKOFF_MS, this.options.intervalMs * 2 ** this.failures);
      this.options.logger.warn({ err: error, waitMs }, 'operational notifications could not be judged or sent; trying again later');
      return waitMs;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass().then((next) => this.schedule(next));
    }, delayMs).unref();
  }
}
