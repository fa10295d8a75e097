/*
 * A test event: a sample callback of the status a partner chooses, sent to one of its endpoints
 * through the real sender, so it is signed exactly as real ones and the partner sees what its
 * endpoint answers. The body is the partner's body mapping applied to the sample policy
 * (schemas/examples/policy-status-event.json) with a policy number marked TEST-…, built as the
 * policy-status-consumer builds real ones (@hookstream/contract's buildCallbackBody). Its delivery id
 * (test_<uuid>) cannot meet a real one (theirs are hashes). The sender makes one attempt, outside the
 * ordering of real callbacks and the circuit, never retried or dead-lettered; the answer waits for
 * that attempt to reach the log (the endpoint's timeout and a grace), else says where to poll.
 * Limited per partner by the minute, and audited.
 */
import { randomUUID } from 'node:crypto';
import { CallbackBodyError, buildCallbackBody, type CallbackRequestValue, type PolicyStatusEventValue } from '@hookstream/contract';
import { ErrorCodes, NotFoundError, Refusal } from '@hookstream/errors';
import type { Actor, PartnerDirectory } from '@hookstream/partners';
import type { Reservation } from '../adapters/store/resend-reservations';
import type { RequestedCallbacks } from './retry-delivery';
import { partnerOperator } from './resend-delivery';

type SamplePolicy = PolicyStatusEventValue['policy'];
export type TestStatus = SamplePolicy['status'];

/** The test's one attempt as the log holds it. */
export interface TestAttempt {
  outcome: string;
  http_status: number | null;
  latency_ms: number | null;
  error_class: string | null;
  response_excerpt: string | null;
  request_headers: Record<string, string> | null;
}

export interface TestEventResult extends Omit<TestAttempt, 'outcome'> {
  delivery_id: string;
  endpoint_id: string;
  policy_number: string;
  status: string;
  /** False when the attempt was not in the log in time: poll the delivery. */
  answered: boolean;
  outcome: 'DELIVERED' | 'FAILED_ATTEMPT' | null;
}

export interface TestEventDeps {
  partners: Pick<PartnerDirectory, 'get'>;
  /** The sample policy the body is built from. */
  samplePolicy: SamplePolicy;
  /** The partner's test events of the minute (adapters/store/resend-reservations.ts, kind test-event). */
  reservations: { reserve(partnerId: string, deliveryId: string, now: Date): Promise<Reservation>; release(id: string): Promise<void> };
  callbacks: RequestedCallbacks;
  /** The test delivery's attempt once the log has it. */
  attemptOf(deliveryId: string, partnerId: string): Promise<TestAttempt | undefined>;
  perMinute: number;
  /** How long past the endpoint's own timeout the answer waits for the attempt to reach the log, ms. */
  graceMs: number;
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
}

export async function sendTestEvent(
  deps: TestEventDeps,
  partnerId: string,
  endpointId: string,
  status: TestStatus,
): Promise<TestEventResult> {
  const now = deps.now ?? Date.now;
  const partner = deps.partners.get(partnerId);
  const endpoint = partner?.callback_endpoints.find((e) => e.endpoint_id === endpointId);
  if (!partner || !endpoint) throw new NotFoundError('endpoint', 'no endpoint with that id');
  if (partner.status !== 'ACTIVE') throw new Refusal(ErrorCodes.CONFLICT, 'the partner is disabled: nothing is sent to its endpoints');
  const id = randomUUID();
  const deliveryId = `test_${id}`;
  const policyNumber = `TEST-${id.slice(0, 8).toUpperCase()}`;
  let body: string;
  try {
    body = buildCallbackBody({ ...deps.samplePolicy, policy_number: policyNumber, status }, partner.body_mapping);
  } catch (error) {
    if (!(error instanceof CallbackBodyError)) throw error;
    throw new Refusal(ErrorCodes.CONFLICT, `your body mapping cannot build a callback: ${error.message}`);
  }
  const reservation = await deps.reservations.reserve(partnerId, deliveryId, new Date(now()));
  if (!reservation.reserved) {
    throw new Refusal(
      ErrorCodes.TOO_MANY_REQUESTS,
      `at most ${deps.perMinute} test events a minute; retry in ${reservation.retryAfterSeconds} seconds`,
      { retryAfterSeconds: reservation.retryAfterSeconds },
    );
  }
  const request: CallbackRequestValue = {
    delivery_id: deliveryId,
    event_id: id,
    partner_id: partnerId,
    endpoint_id: endpointId,
    policy_number: policyNumber,
    policy_version: 0,
    policy_status: status,
    body,
    created_at: now(),
    trigger: 'TEST',
  };
  const actor: Actor = { type: 'partner', id: partnerId, name: partnerOperator(partnerId) };
  try {
    await deps.callbacks.write(request, 0, actor, {
      action: 'endpoint.test-event',
      subject: { type: 'partner', id: partnerId },
      reason: `test event ${status} to endpoint ${endpointId}`,
      detail: { endpoint_id: endpointId, delivery_id: deliveryId, status },
    });
  } catch (error) {
    await deps.reservations.release(reservation.reservationId).catch(() => undefined);
    throw error;
  }
  const base = { delivery_id: deliveryId, endpoint_id: endpointId, policy_number: policyNumber, status };
  const deadline = now() + endpoint.timeout_ms + deps.graceMs;
  for (;;) {
    const attempt = await deps.attemptOf(deliveryId, partnerId);
    if (attempt) return { ...base, ...attempt, answered: true, outcome: attempt.outcome === 'DELIVERED' ? 'DELIVERED' : 'FAILED_ATTEMPT' };
    if (now() >= deadline) break;
    await deps.sleep(Math.min(200, Math.max(0, deadline - now())));
  }
  return {
    ...base,
    answered: false,
    outcome: null,
    http_status: null,
    latency_ms: null,
    error_class: null,
    response_excerpt: null,
    request_headers: null,
  };
}
