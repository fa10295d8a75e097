/* How many records the concurrent mode (ConcurrentRecords) starts before letting the event loop turn. */

/**
 * Records started between two turns of the event loop. A record's work up to its first real I/O
 * (decoding, routing, signing; or for a skipped one, its whole outcome) runs in microtasks, so a
 * batch started in one go holds the loop for all of them: 2,000 records of an open-circuit
 * partner coming due together stalled the callback-sender ~100 ms, and every other partner's
 * responses waited. Yielding every few records lets those responses in between.
 */
export const RECORDS_PER_TURN = 16;
