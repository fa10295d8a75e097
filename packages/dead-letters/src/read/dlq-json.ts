import type { DeadLetter } from './dead-letter';
import type { ReplayDecision } from '../replay/replay-plan';

/**
 * Dead letters and replay decisions as JSON (snake_case): what `hookstream dlq --json` prints and
 * the operator API answers, one shape for both.
 */

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A dead letter as JSON. */
export function letterJson(letter: DeadLetter, replayed?: boolean): Record<string, unknown> {
  return {
    topic: letter.source,
    partition: letter.partition,
    offset: letter.offset,
    dead_lettered_at: iso(letter.deadLetteredAt),
    partner_id: letter.partnerId,
    policy_number: letter.policyNumber,
    policy_status: letter.policyStatus,
    policy_version: letter.policyVersion,
    event_id: letter.eventId,
    delivery_id: letter.deliveryId,
    endpoint_id: letter.endpointId,
    attempts: letter.attempts,
    last_http_status: letter.lastHttpStatus,
    error_class: letter.errorClass,
    reason: letter.reason,
    replay_count: letter.replayCount,
    created_at: iso(letter.createdAt),
    undecodable: letter.undecodable,
    ...(replayed === undefined ? {} : { replayed }),
  };
}

/** A replay decision as JSON. */
export function decisionJson(decision: ReplayDecision): Record<string, unknown> {
  return {
    outcome: decision.outcome,
    detail: decision.detail,
    replay_count: decision.replayCount,
    partition: decision.letter.partition,
    offset: decision.letter.offset,
    delivery_id: decision.letter.deliveryId,
    event_id: decision.letter.eventId,
    partner_id: decision.letter.partnerId,
    policy_number: decision.letter.policyNumber,
    policy_version: decision.letter.policyVersion,
  };
}
