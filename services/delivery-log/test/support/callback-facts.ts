import type { CallbackRequestValue } from '@hookstream/contract';
import type { Fact } from '../../src/entry/kafka/facts';

/** A delivery's request: one policy event to one partner endpoint, made at `createdAt`. */
export function callbackRequest(
  deliveryId: string,
  createdAt: number,
  of: { partnerId?: string; endpointId?: string; policyNumber?: string } = {},
): CallbackRequestValue {
  return {
    delivery_id: deliveryId,
    event_id: `e-${deliveryId}`,
    partner_id: of.partnerId ?? 'acme',
    endpoint_id: of.endpointId ?? 'main',
    policy_number: of.policyNumber ?? `P-${deliveryId}`,
    policy_version: 1,
    policy_status: 'POLICY_ACTIVE',
    body: '{}',
    created_at: createdAt,
  };
}

let offset = 0;

/**
 * What the sender recorded of `request` at `at` (each record at the next offset of callback-outcomes):
 * a send with the partner's status, or an outcome that made no request (null status).
 */
export function attemptOf(
  request: CallbackRequestValue,
  at: number,
  record: { attempt?: number; outcome: string; httpStatus?: number | null; errorClass?: string | null; latencyMs?: number | null },
): Extract<Fact, { kind: 'attempt' }> {
  const httpStatus = record.httpStatus ?? null;
  return {
    kind: 'attempt',
    partition: 0,
    offset: String(offset++),
    outcome: {
      ...request,
      attempt: record.attempt ?? 1,
      outcome: record.outcome,
      http_status: httpStatus,
      error_class: record.errorClass !== undefined ? record.errorClass : record.outcome === 'DELIVERED' ? null : 'HTTP_STATUS',
      latency_ms: record.latencyMs ?? (httpStatus === null ? null : 10),
      recorded_at: at,
      tier: (record.attempt ?? 1) - 1,
      response_excerpt: null,
      request_headers_json: null,
    },
  };
}
