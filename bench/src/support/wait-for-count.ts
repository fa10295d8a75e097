/**
 * The benches' wait for work still on its way after the load has been offered: until a count
 * reaches what was sent, or stops growing for long enough that the rest is called missing (the
 * bench then prints how many), so that a stalled service ends the run with its figures instead
 * of hanging it.
 */
import { performance } from 'node:perf_hooks';
import { sleep } from '@hookstream/runtime';

/** How often the count is polled. */
const POLL_MS = 250;

/**
 * Polls `count` until it reaches `expected`, or has not grown for `stallMs`; `check` runs after
 * every poll (e.g. that the services are alive) and what it throws ends the wait. Returns the last count.
 */
export async function waitForCount(count: () => Promise<number>, expected: number, stallMs: number, check: () => void): Promise<number> {
  let seen = -1;
  let progressAt = performance.now();
  for (;;) {
    const now = await count();
    check();
    if (now >= expected) return now;
    if (now > seen) {
      seen = now;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > stallMs) {
      return now;
    }
    await sleep(POLL_MS);
  }
}
