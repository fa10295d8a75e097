import type { CircuitBreaker } from '../isolation/circuit-breaker';
import type { CallbackRequest, DeliveryOutcome } from './deliver-callback';
import { routeAfterFailure } from './retry-route';

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
  /** Longest a partner's Retry-After may push a retry out, in ms. */
  maxRetryAfterMs: number;
  /**
   * Records skipped while a circuit is open come due spread over this long after the probe may
   * go (the open period): all due at the probe's instant, an open partner's whole backlog came
   * back in one burst every period, its writes crowding out every other partner's, and a partner
   * whose circuit closes would get its backlog at once.
   */
  skippedSpreadMs: number;
  now: () => number;
  /** In [0, 1); Math.random unless a test fixes it. */
  random?: () => number;
}

/**
 * Handles one callback record (spec 4.1, 7.2, 8), whether fresh or from a retry tier:
 * 1. superseded by a newer version for its endpoint → SUPERSEDED, not sent;
 * 2. the partner's circuit is open → back to a retry tier, due once the circuit lets a probe
 *    through (spread over skippedSpreadMs after it), without an attempt (no retry is used up);
 * 3. otherwise one attempt: 200 → delivered; a failure → the next tier after its delay (or the
 *    partner's Retry-After on 429/503, if later), after the last tier → dead letter; a failure
 *    that can never succeed as configured → dead letter at once.
 */
export async function routeCallback(request: CallbackRequest, attemptsSoFar: number, deps: RouteCallbackDeps): Promise<Disposition> {
  if (deps.isSuperseded(request)) return { kind: 'superseded', attempts: attemptsSoFar };
  const breaker = deps.breaker(request.partner_id);
  const skipped = (): Disposition => {
    const now = deps.now();
    return {
      kind: 'retry',
      tier: Math.max(1, attemptsSoFar),
      dueAt: Math.max(breaker.retryAt ?? now, now) + Math.floor((deps.random ?? Math.random)() * deps.skippedSpreadMs),
      attempts: attemptsSoFar,
      skipped: true,
      httpStatus: null,
      errorClass: 'CIRCUIT_OPEN',
      lastError: null,
      latencyMs: null,
    };
  };
  if (!breaker.tryAcquire()) return skipped();
  const attempt = attemptsSoFar + 1;
  const outcome = await deps.attempt(request, attempt);
  const now = deps.now();
  switch (outcome.kind) {
    case 'circuit-open':
      return skipped();
    case 'delivered':
      breaker.recordSuccess();
      return { kind: 'delivered', attempt, httpStatus: outcome.httpStatus, latencyMs: outcome.latencyMs };
    case 'undeliverable':
      // A configuration problem, not the partner's health: the breaker learns nothing from it.
      breaker.recordSuccess();
      return {
        kind: 'dead-letter',
        attempts: attempt,
        httpStatus: null,
        errorClass: outcome.errorClass,
        reason: outcome.detail,
        latencyMs: null,
      };
    case 'failed': {
      breaker.recordFailure();
      const lastError = outcome.httpStatus !== null ? `HTTP ${outcome.httpStatus}` : `${outcome.errorClass}: ${outcome.detail}`;
      const route = routeAfterFailure(attempt, deps.retryDelaysMs, now);
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
      const asked = outcome.retryAfterMs === undefined ? 0 : Math.min(outcome.retryAfterMs, deps.maxRetryAfterMs);
      return {
        kind: 'retry',
        tier: route.tier,
        dueAt: Math.max(route.dueAt, now + asked),
        attempts: attempt,
        skipped: false,
        httpStatus: outcome.httpStatus,
        errorClass: outcome.errorClass,
        lastError,
        latencyMs: outcome.latencyMs,
      };
    }
  }
}
