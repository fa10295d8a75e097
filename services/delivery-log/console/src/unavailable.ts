/*
 * Waiting out a 503: the service answers it while it starts (its partner and operator directories
 * not read yet) or while a store it needs is away, and says when to retry. A read is asked again
 * with growing pauses, and the page says meanwhile that it is waiting (api-notices.ts); writes are
 * not repeated behind the person's back.
 */
import { countWaitingRead } from './api-notices';

/** About how long a read waits in all before its 503 is shown (a cold start of the stack takes a minute or so). */
export const GIVE_UP_AFTER_MS = 120_000;

/** The pause before retry `round` (0 first): 1, 2, 4, 8 then 15 s, or the answer's Retry-After when longer (at most 60 s). */
export function retryDelayMs(round: number, retryAfterSeconds?: number): number {
  return Math.min(60_000, Math.max(Math.min(15_000, 1000 * 2 ** round), (retryAfterSeconds ?? 0) * 1000));
}

/** A refusal this waits out: a 503, with its Retry-After when it had one. */
interface Unavailable {
  status: 503;
  retryAfterSeconds?: number | undefined;
}

const isUnavailable = (failure: unknown): failure is Unavailable => (failure as { status?: unknown } | null)?.status === 503;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `attempt`'s answer, asked again while it is a 503 until GIVE_UP_AFTER_MS have passed; then its last failure. */
export async function whileUnavailable<T>(attempt: () => Promise<T>, sleep = pause): Promise<T> {
  let waited = 0;
  let waiting = false;
  try {
    for (let round = 0; ; round++) {
      try {
        return await attempt();
      } catch (failure) {
        if (!isUnavailable(failure) || waited >= GIVE_UP_AFTER_MS) throw failure;
        if (!waiting) countWaitingRead(1);
        waiting = true;
        const delay = retryDelayMs(round, failure.retryAfterSeconds);
        await sleep(delay);
        waited += delay;
      }
    }
  } finally {
    if (waiting) countWaitingRead(-1);
  }
}
