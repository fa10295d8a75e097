import { inSpan, withTimeout } from '@hookstream/runtime';
import { type Partner } from '@hookstream/partners';
import { acceptWebhook, type AcceptWebhookDeps } from './accept-webhook';
import { OutcomeMessages, type WebhookOutcome } from './webhook-outcome';
import { payloadFingerprint } from './payload-fingerprint';
import { validateWebhookPayload } from './webhook-payload';
import type { BodyAsRead } from './webhook-rejection';

/** A body the entry has decoded: its text (UTF-8) and its JSON value. */
export type DecodedBody = BodyAsRead & { text: string; parsed: unknown };

/**
 * A partner's webhook received (spec 4.2), once its API key, content type and body bytes have
 * passed the entry: its fields are checked against the rules of spec 2.2, its payload
 * fingerprinted, then it is accepted (acceptWebhook) within the write deadline. What is learnt of
 * the body (its request_id, its fingerprint) is noted on `body`, for the record of a refusal and
 * of a replay.
 */
export function receiveWebhook(
  partner: Partner,
  body: DecodedBody,
  deps: AcceptWebhookDeps,
  writeTimeoutMs: number,
): Promise<WebhookOutcome> {
  // The span the webhook's trace crosses Kafka from (its partner-events record carries it); identifiers only, never the body.
  return inSpan('webhook.accept', { attributes: { 'hookstream.partner_id': partner.partner_id } }, async (span) => {
    const validated = validateWebhookPayload(body.parsed, body.text);
    if (!validated.ok) return { kind: 'invalid', problems: validated.problems };
    body.requestId = validated.payload.request_id;
    body.fingerprint = payloadFingerprint(body.parsed, body.text);
    if (body.requestId !== undefined) span.setAttribute('hookstream.request_id', body.requestId);
    const outcome = await withinWriteDeadline(acceptWebhook(partner, validated.payload, body.fingerprint, deps), writeTimeoutMs);
    span.setAttribute('hookstream.outcome', outcome.kind);
    return outcome;
  });
}

const WRITE_TIMEOUT = 'write timeout';

/**
 * The longest a partner waits for its webhook to be durable: past `ms` it is told to retry later
 * (unavailable, 503). The write is not stopped: the producer fails it for good at the same timeout
 * (main.ts), so it never outlives its request_id's claim, which a retry meets.
 */
async function withinWriteDeadline(accepting: Promise<WebhookOutcome>, ms: number): Promise<WebhookOutcome> {
  try {
    return await withTimeout(accepting, ms, WRITE_TIMEOUT);
  } catch (error) {
    if (error instanceof Error && error.message === WRITE_TIMEOUT) return { kind: 'unavailable', message: OutcomeMessages.notStoredInTime };
    throw error;
  }
}
