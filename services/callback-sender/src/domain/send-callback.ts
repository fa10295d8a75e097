/*
 * The delivery decision for one callback record, as one story: superseded → circuit → partner
 * slot → sign and deliver → disposition. Its adapters (latest versions in the state store, breakers,
 * limiter, the deliver function) are passed in; main.ts wires them.
 */
import { nextTierAfterFailure, retryScheduleMs, tierAtLeast, type RetryHistory } from '@hookstream/kafka';
import type { CircuitBreaker } from './circuit-breaker';
import type { CallbackRequest } from './deliver-callback';
import type { Disposition } from './disposition';
import type { ReadFrom, SendCallbackDeps } from './send-callback-deps';
import { sendRequestedAttempt } from './requested-attempt';

export type { Disposition } from './disposition';
export type { DeliveredCallbacks, ReadFrom, SendCallbackDeps } from './send-callback-deps';

/**
 * Latest-wins (spec 7.2): a newer version of the policy was emitted for the record's endpoint; never
 * in ordering mode NONE (no store query then). The store unavailable rejects: the record is read
 * again later, never sent or skipped unjudged.
 */
async function isSuperseded(r: CallbackRequest, deps: SendCallbackDeps): Promise<boolean> {
  const endpoint = deps.partners.get(r.partner_id)?.callback_endpoints.find((e) => e.endpoint_id === r.endpoint_id);
  if (endpoint?.ordering === 'NONE') return false;
  return deps.versions.isSuperseded(r.partner_id, r.endpoint_id, r.policy_number, r.policy_version);
}

/**
 * Handles one callback record (spec 4.1, 7.2, 8), whether fresh or from a retry tier. A retry now or
 * a test makes one attempt of its own (requested-attempt.ts). Otherwise:
 * 1. superseded by a newer version for its endpoint → SUPERSEDED, not sent; a tier's record whose
 *    delivery a retry now (or another record of it) delivered → ALREADY_DELIVERED, not sent (only
 *    tier records ask, and record their delivery: the first send pays nothing; see oneSend);
 * 2. the partner's circuit is open → back to a retry tier without an attempt (no retry is used
 *    up; see skip());
 * 3. otherwise one attempt, in one of the partner's slots (the circuit looked at again once the
 *    slot is had), signed and delivered: 200 → delivered; a failure → the next tier after its delay (or a later
 *    tier whose delay covers the partner's Retry-After on 429/503), after the last tier → dead letter; a failure
 *    that can never succeed as configured → dead letter at once.
 */
export async function sendCallback(
  request: CallbackRequest,
  history: RetryHistory,
  deps: SendCallbackDeps,
  read: ReadFrom = {},
): Promise<Disposition> {
  if (request.trigger === 'TEST') return sendRequestedAttempt(request, history.attempts, deps, () => isSuperseded(request, deps));
  if (request.trigger === 'RETRY_NOW') {
    return oneSend(request, history, deps, () => sendRequestedAttempt(request, history.attempts, deps, () => isSuperseded(request, deps)));
  }
  if (read.tier === undefined) return sendScheduled(request, history, deps);
  return oneSend(request, history, deps, () => sendScheduled(request, history, deps));
}

/**
 * A retry now or a tier's record: sends nothing once its delivery is delivered (by a retry now or
 * another record of it, at any time: a tier attempt in flight while a retry now delivered, which
 * then failed, must not go on through the tiers), and records its own delivery so that the other
 * sends nothing. The check, the send and the record run one at a time per delivery on this
 * replica (SendsInFlight). A store unable to answer rejects: the record is read again, never sent
 * or skipped unjudged.
 */
function oneSend(request: CallbackRequest, history: RetryHistory, deps: SendCallbackDeps, send: () => Promise<Disposition>) {
  return deps.sendsInFlight.one(request.delivery_id, async (): Promise<Disposition> => {
    if (await deps.delivered.wasDelivered(request.delivery_id)) return { kind: 'already-delivered', attempts: history.attempts };
    const disposition = await send();
    // Before its outcome is written: once the log shows it delivered, the other record already finds it.
    if (disposition.kind === 'delivered') await deps.delivered.recordDelivered(request.delivery_id, deps.now());
    return disposition;
  });
}

/** One attempt by the retry schedule (steps 1 to 3 above). */
async function sendScheduled(request: CallbackRequest, history: RetryHistory, deps: SendCallbackDeps): Promise<Disposition> {
  if (await isSuperseded(request, deps)) return { kind: 'superseded', attempts: history.attempts };
  const breaker = deps.breakers.for(request.partner_id);
  const skipped = () => skip(history, breaker, deps);
  if (!breaker.tryAcquire()) return skipped();
  const attempt = history.attempts + 1;
  const outcome = await deps.limiter.run(request.partner_id, () =>
    // The circuit may have opened while this record waited for its slot: then it goes back, unattempted.
    breaker.state === 'open' ? Promise.resolve({ kind: 'circuit-open' as const }) : deps.deliver(request, attempt),
  );
  const now = deps.now();
  switch (outcome.kind) {
    case 'circuit-open':
      return skipped();
    case 'delivered':
      breaker.recordAttempt(outcome, attempt);
      return {
        kind: 'delivered',
        attempt,
        httpStatus: outcome.httpStatus,
        latencyMs: outcome.latencyMs,
        responseExcerpt: outcome.responseExcerpt,
        requestHeaders: outcome.requestHeaders,
      };
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
        responseExcerpt: null,
        requestHeaders: null,
      };
    case 'failed': {
      // Counted as a failure or not by what it was (attempt-verdict.ts): a quick error answer to a first attempt is not.
      breaker.recordAttempt(outcome, attempt);
      const lastError = outcome.httpStatus !== null ? `HTTP ${outcome.httpStatus}` : `${outcome.errorClass}: ${outcome.detail}`;
      // A partner's Retry-After is a lower bound: the retry goes to the first tier whose delay covers it.
      const asked = outcome.retryAfterMs === undefined ? 0 : Math.min(outcome.retryAfterMs, deps.maxRetryAfterMs);
      const next = nextTierAfterFailure(attempt, deps.retryDelaysMs, now, asked);
      if (next.kind === 'dead-letter') {
        return {
          kind: 'dead-letter',
          attempts: attempt,
          httpStatus: outcome.httpStatus,
          errorClass: outcome.errorClass,
          reason: `${attempt} attempts failed; the last: ${lastError}`,
          latencyMs: outcome.latencyMs,
          responseExcerpt: outcome.responseExcerpt,
          requestHeaders: outcome.requestHeaders,
        };
      }
      return {
        kind: 'retry',
        tier: next.tier,
        dueAt: next.dueAt,
        attempts: attempt,
        skipped: false,
        skips: 0,
        httpStatus: outcome.httpStatus,
        errorClass: outcome.errorClass,
        lastError,
        latencyMs: outcome.latencyMs,
        responseExcerpt: outcome.responseExcerpt,
        requestHeaders: outcome.requestHeaders,
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
function skip(history: RetryHistory, breaker: CircuitBreaker, deps: SendCallbackDeps): Disposition {
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
      responseExcerpt: null,
      requestHeaders: null,
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
    responseExcerpt: null,
    requestHeaders: null,
  };
}
