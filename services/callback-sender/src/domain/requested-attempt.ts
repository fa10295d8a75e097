/*
 * One attempt a person asked for, outside the retry schedule (schemas/callback-request.avsc trigger):
 * - RETRY_NOW: a failing delivery tried again now, under its own id. Latest-wins as always (a newer
 *   status of the policy supersedes it). It goes even while the partner's circuit is open and is its
 *   probe (its outcome closes or re-opens it): whoever asked has just fixed the endpoint, most often.
 *   Sent only while its delivery is not delivered, and recorded in the state store once delivered, so
 *   neither the record still waiting in its tier nor a second retry now sends it again
 *   (send-callback.ts oneSend); failed → only its outcome, the tier record keeps its schedule.
 * - TEST: a sample callback to try an endpoint. Never ordered against real callbacks (no latest-wins,
 *   and it is not recorded among the versions: latest-versions.ts skips it), and the circuit is left
 *   alone both ways: a test is no evidence about real deliveries, nor held back by them.
 * Either makes ONE attempt, in a slot of the partner's limit like any other: never a tier or a dead letter.
 */
import type { CallbackRequest, DeliveryOutcome } from './deliver-callback';
import type { Disposition } from './disposition';
import type { SendCallbackDeps } from './send-callback-deps';

export async function sendRequestedAttempt(
  request: CallbackRequest,
  attemptsSoFar: number,
  deps: SendCallbackDeps,
  superseded: () => Promise<boolean>,
): Promise<Disposition> {
  const retryNow = request.trigger === 'RETRY_NOW';
  if (retryNow && (await superseded())) return { kind: 'superseded', attempts: attemptsSoFar };
  const attempt = attemptsSoFar + 1;
  const breaker = retryNow ? deps.breakers.for(request.partner_id) : undefined;
  const outcome: DeliveryOutcome = await deps.limiter.run(request.partner_id, () => {
    breaker?.probeNow();
    return deps.deliver(request, attempt);
  });
  if (outcome.kind !== 'circuit-open') breaker?.recordAttempt(outcome, attempt);
  switch (outcome.kind) {
    case 'delivered':
      return {
        kind: 'delivered',
        attempt,
        httpStatus: outcome.httpStatus,
        latencyMs: outcome.latencyMs,
        responseExcerpt: outcome.responseExcerpt,
        requestHeaders: outcome.requestHeaders,
      };
    case 'failed':
      return {
        kind: 'attempted',
        attempt,
        httpStatus: outcome.httpStatus,
        errorClass: outcome.errorClass,
        latencyMs: outcome.latencyMs,
        responseExcerpt: outcome.responseExcerpt,
        requestHeaders: outcome.requestHeaders,
      };
    case 'undeliverable':
    case 'circuit-open': // deliver never answers this (send-callback's slot check does): named for the compiler
      return {
        kind: 'attempted',
        attempt,
        httpStatus: null,
        errorClass: outcome.kind === 'undeliverable' ? outcome.errorClass : 'CIRCUIT_OPEN',
        latencyMs: null,
        responseExcerpt: null,
        requestHeaders: null,
      };
  }
}
