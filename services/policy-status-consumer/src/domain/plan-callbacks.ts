import { ErrorCodes, hasErrorCode } from '@hookstream/errors';
import { buildCallbackBody, type CallbackRequestValue, type PolicyStatusEventValue } from '@hookstream/contract';
import { endpointWants, type Partner } from '@hookstream/partners';
import { deliveryIdFor } from './delivery-id';

/** Why an event cannot be turned into callbacks; it goes to the policy-status dead-letter topic. */
export type DeadLetterClass = 'DECODE_ERROR' | 'UNKNOWN_PARTNER' | 'PARTNER_DISABLED' | 'BODY_BUILD_FAILED' | 'RECORD_TOO_LARGE';

export type CallbackPlan =
  | { kind: 'callbacks'; requests: CallbackRequestValue[] }
  /** The partner has no endpoint that wants this status or product: nothing to send. */
  | { kind: 'no-target' }
  | { kind: 'dead-letter'; errorClass: DeadLetterClass; reason: string };

/** Whether `endpoint` subscribes to the event (shared: `hookstream dlq show` judges by it too). */
export { endpointWants };

/**
 * The callbacks one policy-status event fans out to (spec 4.1, 6): one per endpoint of its
 * partner that wants the status and product, each with the partner's body (built once: the
 * mapping belongs to the partner, not the endpoint) and a delivery id stable across re-emission.
 */
export function planCallbacks(event: PolicyStatusEventValue, partner: Partner | undefined, now: number): CallbackPlan {
  if (!partner) return { kind: 'dead-letter', errorClass: 'UNKNOWN_PARTNER', reason: `no partner "${event.partner_id}" in partner-config` };
  if (partner.status !== 'ACTIVE') {
    return {
      kind: 'dead-letter',
      errorClass: 'PARTNER_DISABLED',
      reason: `partner "${partner.partner_id}" is disabled: no callbacks are sent`,
    };
  }
  const { policy } = event;
  const targets = partner.callback_endpoints.filter((e) => endpointWants(e, policy.status, policy.product_code));
  if (targets.length === 0) return { kind: 'no-target' };
  let body: string;
  try {
    body = buildCallbackBody(policy, partner.body_mapping);
  } catch (error) {
    if (hasErrorCode(error, ErrorCodes.CALLBACK_BODY_INVALID)) {
      return { kind: 'dead-letter', errorClass: 'BODY_BUILD_FAILED', reason: (error as Error).message };
    }
    throw error;
  }
  return {
    kind: 'callbacks',
    requests: targets.map((endpoint) => ({
      delivery_id: deliveryIdFor(event.event_id, partner.partner_id, endpoint.endpoint_id),
      event_id: event.event_id,
      partner_id: partner.partner_id,
      endpoint_id: endpoint.endpoint_id,
      policy_number: policy.policy_number,
      policy_version: event.version,
      policy_status: policy.status,
      body,
      created_at: now,
    })),
  };
}
