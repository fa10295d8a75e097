/* The request_id ledger's bounds: what one replica's waits, searches and writes may cost. */

/**
 * How often a duplicate looks whether the request it waits for has completed (docs/inbound.md: why
 * polling): first after 25 ms, then half as often again each time, at most every 400 ms, so a wait
 * costs about 30 reads over 10 s rather than 400.
 */
export const POLL_MS = 25;
export const POLL_MAX_MS = 400;
/**
 * Most duplicates waiting at once in a replica, and most takeover searches (each reads every
 * partition of partner-events): past them a request is answered "retry later" at once, so a burst
 * of retries (after a replica's crash, or from a partner) cannot multiply the store's reads or
 * Kafka's fetches without bound.
 */
export const MAX_WAITING = 256;
export const MAX_SEARCHING = 4;
/**
 * A claim that took longer than this to be made is given back and answered 503: the claim TTL must
 * outlast the claim's statement and the event's write (config.ts: TTL ≥ write timeout + 5 s).
 */
export const CLAIM_WRITE_WINDOW_MS = 2_000;
/** A completion not written within this long is dropped: the claim is then taken over, and searched for, after its TTL. */
export const COMPLETION_WINDOW_MS = 30_000;
