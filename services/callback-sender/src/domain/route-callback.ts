import type { CircuitBreaker } from '../isolation/circuit-breaker';
import type { CallbackRequest, DeliveryOutcome } from './deliver-callback';
import { retryScheduleMs, routeAfterFailure, tierAtLeast, type RetryHistory } from './retry-route';

/** Where one callback record goes after it was handled. */
export type Disposition =
  | { kind: 'delivered'; attempt: number; httpStatus: number; latencyMs: number }
  /** Back into a retry tier: after a failed attempt, or without one while the partner's circuit is open. */
  | {
      kind: 'retry';
      tier: number;
      dueAt: number;
      /** Attempts made so far (a skipped attempt does not count). */
      attempts: number;
      skipped: boolean;
      /** Skips since the last attempt, this one included (0 after a failed attempt). */
      skips: number;
      httpStatus: number | null;
      errorClass: string | null;
      lastError: string | null;
      latencyMs: number | null;
    }
  | { kind: 'dead-letter'; attempts: number; httpStatus: number | null; errorClass: string; reason: string; latencyMs: number | null }
  | { kind: 'superseded'; attempts: number };

export interface RouteCallbackDeps {
  /** Whether a newer version of the policy was emitted for the record's endpoint (latest-wins); false in ordering mode NONE. */
  isSuperseded: (request: CallbackRequest) => boolean;
  breaker: (partnerId: string) => CircuitBreaker;
  /** One attempt, run within the partner's concurrency limit. */
  attempt: (request: CallbackRequest, attempt: number) => Promise<DeliveryOutcome>;
  retryDelaysMs: readonly number[];
  /** Longest a partner's Retry-After may push a retry out, in ms (and never past the longest tier's delay). */
  maxRetryAfterMs: number;
  now: () => number;
}

/**
 * Handles one callback record (spec 4.1, 7.2, 8), whether fresh or from a retry tier:
 * 1. superseded by a newer version for its endpoint → SUPERSEDED, not sent;
 * 2. the partner's circuit is open → back to a retry tier without an attempt (no retry is used
 *    up; see skip());
 * 3. otherwise one attempt: 200 → delivered; a failure → the next tier after its delay (or a later
 *    tier whose delay covers the partner's Retry-After on 429/503), after the last tier → dead letter; a failure
 *    that can never succeed as configured → dead letter at once.
 */
export async function routeCallback(request: CallbackRequest, history: RetryHistory, deps: RouteCallbackDeps): Promise<Disposition> {
  if (deps.isSuperseded(request)) return { kind: 'superseded', attempts: history.attempts };
  const breaker = deps.breaker(request.partner_id);
  const skipped = () => skip(history, breaker, deps);
  if (!breaker.tryAcquire()) return skipped();
  const attempt = history.attempts + 1;
  const outcome = await deps.attempt(request, attempt);
  const now = deps.now();
  switch (outcome.kind) {
    case 'circuit-open':
      return skipped();
    case 'delivered':
      breaker.recordAttempt(outcome, attempt);
      return { kind: 'delivered', attempt, httpStatus: outcome.httpStatus, latencyMs: outcome.latencyMs };
    case 'undeliverable':
      // A configuration problem, not the partner's health: the breaker learns nothing from it.
      breaker.recordAttempt(outcome, attempt);
      return {
        kind: 'dead-letter',
        attempts: attempt,
        httpStatus: null,
        errorClass: outcome.errorClass,
        reason: outcome.detail,
        latencyMs: null,
      };
    case 'failed': {
      // Counted as a failure or not by what it was (isolation/attempt-verdict): a quick error answer to a first attempt is not.
      breaker.recordAttempt(outcome, attempt);
      const lastError = outcome.httpStatus !== null ? `HTTP ${outcome.httpStatus}` : `${outcome.errorClass}: ${outcome.detail}`;
      // A partner's Retry-After is a lower bound: the retry goes to the first tier whose delay covers it.
      const asked = outcome.retryAfterMs === undefined ? 0 : Math.min(outcome.retryAfterMs, deps.maxRetryAfterMs);
      const route = routeAfterFailure(attempt, deps.retryDelaysMs, now, asked);
      if (route.kind === 'dead-letter') {
        return {
          kind: 'dead-letter',
          attempts: attempt,
          httpStatus: outcome.httpStatus,
          errorClass: outcome.errorClass,
          reason: `${attempt} attempts failed; the last: ${lastError}`,
          latencyMs: outcome.latencyMs,
        };
      }
      return {
        kind: 'retry',
        tier: route.tier,
        dueAt: route.dueAt,
        attempts: attempt,
        skipped: false,
        skips: 0,
        httpStatus: outcome.httpStatus,
        errorClass: outcome.errorClass,
        lastError,
        latencyMs: outcome.latencyMs,
      };
    }
  }
}

/**
 * A record whose partner's circuit is open goes back to a retry tier unattempted. It waits at
 * least until the probe may go, and longer the more often it has been skipped in a row: its
 * k-th skip waits as long as retry tier k (5 s, 30 s, 2 min, … 6 h by default). Each tier's due
 * times follow its write order (tierAtLeast), so a backlog comes back at the pace it was skipped,
 * not in a burst, and a partner that recovers gets it spread over about as long as it was down.
 * Without the growing wait a partner down for hours would have its whole backlog rewritten every
 * open period, a load on Kafka growing with its downtime; with it, a record is rewritten about as
 * often as its retries would be. And no record waits for ever: once it has waited the whole
 * retry schedule since its first failure (10 h 42 min by default), it is dead-lettered
 * (CIRCUIT_OPEN), as it would be had its attempts all failed.
 */
function skip(history: RetryHistory, breaker: CircuitBreaker, deps: RouteCallbackDeps): Disposition {
  const now = deps.now();
  const delays = deps.retryDelaysMs;
  const schedule = retryScheduleMs(delays);
  if (history.firstFailureAt !== null && now - history.firstFailureAt >= schedule) {
    return {
      kind: 'dead-letter',
      attempts: history.attempts,
      httpStatus: null,
      errorClass: 'CIRCUIT_OPEN',
      reason: `the partner's circuit stayed open for the whole retry schedule (${Math.round(schedule / 1000)} s since the first failure); ${history.attempts} attempts made`,
      latencyMs: null,
    };
  }
  const wait = Math.max((breaker.retryAt ?? now) - now, delays[Math.min(history.skips, delays.length - 1)]!);
  const tier = tierAtLeast(wait, 1, delays);
  return {
    kind: 'retry',
    tier,
    dueAt: now + delays[tier - 1]!,
    attempts: history.attempts,
    skipped: true,
    skips: history.skips + 1,
    httpStatus: null,
    errorClass: 'CIRCUIT_OPEN',
    lastError: null,
    latencyMs: null,
  };
}
