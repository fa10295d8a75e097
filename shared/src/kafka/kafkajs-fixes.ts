/**
 * A fix for a bug of kafkajs 2.2.4 (its last release) that costs CPU in every process.
 *
 * Each broker connection's request queue re-arms a timer after every check of its pending
 * requests, even when nothing is pending and nothing is throttled; the delay it computes is then
 * negative, which Node turns into 1 ms (with a TimeoutNegativeWarning on Node 24). So from its first
 * response on, every connection runs a 1 ms timer loop for as long as it lives: ~1,000 wake-ups a
 * second per connection, and a service holds tens of connections (each producer and consumer has
 * its own). Reported upstream as tulios/kafkajs#1704 and #1751; the fix below is the one proposed
 * there (PR #1768's review): with nothing pending and no throttle in force, no timer is armed. A
 * request that cannot go out at once is queued by `push`, which arms the timer itself, and every
 * response checks the queue again, so no queued request waits on a timer that was not armed.
 *
 * Applied once per process, only to kafkajs 2.2.4, whose code it was written against; another
 * version is left as it is.
 */
const FIXED_VERSION = '2.2.4';
/** kafkajs's own interval for a queue with requests pending but no throttle in force. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** The part of kafkajs's (internal) RequestQueue the fix touches. */
export interface KafkajsRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

let applied: boolean | undefined;

/** Applies the fix (once); returns whether it is in force. */
export function applyKafkajsFixes(): boolean {
  if (applied !== undefined) return applied;
  // require(): kafkajs's internals have no typed entry point.
  const { version } = require('kafkajs/package.json') as { version: string };
  const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: KafkajsRequestQueue };
  applied = version === FIXED_VERSION && typeof RequestQueue.prototype.scheduleCheckPendingRequests === 'function';
  if (applied) RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  return applied;
}

/** kafkajs's scheduleCheckPendingRequests, without the timer when there is nothing to wait for. */
function scheduleCheckPendingRequests(this: KafkajsRequestQueue): void {
  if (this.throttleCheckTimeoutId) return;
  let scheduleAt = this.throttledUntil - Date.now();
  if (this.pending.length > 0) {
    scheduleAt = scheduleAt > 0 ? scheduleAt : CHECK_PENDING_REQUESTS_INTERVAL_MS;
  } else if (scheduleAt <= 0) {
    return;
  }
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, scheduleAt);
}
