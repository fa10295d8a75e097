/*
 * Puts a callback request a person asked for (a retry now, a test event) on callback-requests, with
 * its audit record on admin-audit, in one Kafka transaction (@hookstream/partners' AuditedWriter):
 * the request exists exactly when its audit does. Keyed by the policy number like every callback
 * request, so the sender handles it in order with the policy's others. Its headers are those the
 * policy-status-consumer writes (partner, endpoint, version), the trigger (the sender's version
 * record leaves a test out by it) and the attempts made so far (the sender numbers the next).
 */
import { CallbackRequestHeaders, type CallbackRequestValue } from '@hookstream/contract';
import { RetryHeaders, TopicNames } from '@hookstream/kafka';
import type { Actor, AuditedChange, AuditedWriter } from '@hookstream/partners';
import type { RequestedCallbacks as RequestedCallbacksPort } from '../../domain/retry-delivery';

export class RequestedCallbacks implements RequestedCallbacksPort {
  constructor(private readonly audit: Pick<AuditedWriter, 'write'>) {}

  async write(request: CallbackRequestValue, attemptsSoFar: number, actor: Actor, change: AuditedChange): Promise<string> {
    const headers: Record<string, string> = {
      [CallbackRequestHeaders.partnerId]: request.partner_id,
      [CallbackRequestHeaders.endpointId]: request.endpoint_id,
      [CallbackRequestHeaders.policyVersion]: String(request.policy_version),
      [RetryHeaders.attempts]: String(attemptsSoFar),
      ...(request.trigger ? { [CallbackRequestHeaders.trigger]: request.trigger } : {}),
    };
    const record = { ...request, trigger: request.trigger ?? null } as unknown as Record<string, unknown>;
    const entry = await this.audit.write(
      [{ topic: TopicNames.callbackRequests, key: request.policy_number, value: record, headers }],
      actor,
      change,
    );
    return entry.audit_id;
  }
}
