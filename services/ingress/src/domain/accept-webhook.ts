import { randomUUID } from 'node:crypto';
import { describeError } from '@hookstream/errors';
import { isStoreUnavailable, type Logger } from '@hookstream/runtime';
import { type Partner } from '@hookstream/partners';
import type { IngressMetrics } from '../metrics';
import type { EncodedEvent, PartnerEventLog } from './partner-events';
import type { Completion, RequestIdLedger } from './request-id-ledger';
import { OutcomeMessages, type AcceptedWebhook, type WebhookOutcome } from './webhook-outcome';
import type { WebhookPayload } from './webhook-payload';

export interface AcceptWebhookDeps {
  ledger: RequestIdLedger;
  /** Where the webhook's event is written (acks=all). */
  events: PartnerEventLog;
  instanceId: string;
  /** How long a duplicate waits for an in-flight original, and a takeover searches partner-events. */
  duplicateWaitMs: number;
  metrics: IngressMetrics;
  logger: Logger;
  now?: () => number;
}

/**
 * Accepts one validated webhook (spec 4.2): accepted only once its partner-events record is
 * durable. With a request_id the idempotency table of spec 4.2 holds across replicas and restarts,
 * through the ledger in PostgreSQL (RequestIdLedger.claim):
 * 1. a completed key: the first acceptance's answer for the same payload, a conflict for another;
 * 2. a key in flight: a conflict for another payload; the same payload waits for the outcome (bounded);
 * 3. otherwise the request claims the key; the winner writes the partner event, answers, and
 *    records the completion on its row. The store unavailable: 503, never a 200 without the claim.
 * Without a request_id the ledger is not asked (the store may be down).
 */
export async function acceptWebhook(
  partner: Partner,
  payload: WebhookPayload,
  fingerprint: string,
  deps: AcceptWebhookDeps,
): Promise<WebhookOutcome> {
  const now = deps.now ?? Date.now;
  const requestId = payload.request_id;
  // Without a request_id every request is a new webhook (spec 4.2); its answer carries an id of ours.
  const webhook: AcceptedWebhook = {
    requestId: requestId ?? randomUUID(),
    transactionNumber: payload.transaction_number,
    transactionType: payload.transaction_type,
  };
  const event = await deps.events.encode({
    partner_id: partner.partner_id,
    request_id: requestId ?? null,
    transaction_number: payload.transaction_number,
    transaction_type: payload.transaction_type,
    status: payload.status,
    documents: payload.documents.map((d) => ({ type: d.type, url: d.url, filename: d.filename ?? null })),
    received_at: now(),
    payload_fingerprint: fingerprint,
    ingress_instance: deps.instanceId,
  });
  if (event === 'unavailable') return { kind: 'unavailable', message: OutcomeMessages.registryUnavailable };
  const writeEvent = () => writeDurably(event, webhook, deps);
  if (requestId === undefined) return writeEvent();

  // Kafka away: answered before a claim is made, which would otherwise hold the key until the
  // claim TTL (a retry after the outage would wait for it).
  if (!deps.events.reachable()) return { kind: 'unavailable', message: OutcomeMessages.kafkaUnavailable };
  try {
    for (let round = 0; round < 3; round++) {
      const claimStarted = process.hrtime.bigint();
      const claimed = await deps.ledger.claim(partner.partner_id, requestId, fingerprint, deps.duplicateWaitMs);
      deps.metrics.claimSeconds.observe(Number(process.hrtime.bigint() - claimStarted) / 1e9);
      switch (claimed.kind) {
        case 'won': {
          const outcome = await writeEvent();
          // Not awaited: the answer is known once the event is durable (a repeat meanwhile waits for the row).
          if (outcome.kind === 'accepted') void recordCompletion(partner.partner_id, claimed.claimId, fingerprint, outcome.webhook, deps);
          return outcome;
        }
        case 'completed':
          return answerOf(claimed.completion, fingerprint, deps);
        case 'claimed': {
          if (claimed.claim.fingerprint !== fingerprint) return conflict(deps);
          const completion = await deps.ledger.waitForCompletion(partner.partner_id, requestId, deps.duplicateWaitMs);
          return completion ? answerOf(completion, fingerprint, deps) : { kind: 'in-progress', message: OutcomeMessages.stillProcessing };
        }
        case 'unchecked':
          return { kind: 'unavailable', message: OutcomeMessages.ledgerUnchecked(claimed.why) };
        case 'lost':
        // Another request took the key over between this one's reads: read it again.
      }
    }
  } catch (error) {
    // Whatever the store said, the partner is told to retry (never 500: nothing was accepted, and a
    // claim left behind is taken over after its TTL). A failure that is not the store being away
    // (a refused login, a dropped table) is ours to fix: logged as an error.
    if (!isStoreUnavailable(error))
      deps.logger.error({ err: describeError(error), partnerId: partner.partner_id, requestId }, 'the request_id ledger failed');
    return { kind: 'unavailable', message: OutcomeMessages.storeUnavailable };
  }
  return { kind: 'in-progress', message: OutcomeMessages.beingProcessed };
}

/**
 * Records the answer on the won claim, after the partner's 200 (so it adds nothing to its
 * latency). The event is durable already, so the partner is answered 200 whatever happens here:
 * should the store fail now (or the replica die), the claim stays open and a retry after the claim
 * TTL takes it over, finds this event on partner-events and answers from it. Never throws.
 */
async function recordCompletion(
  partnerId: string,
  claimId: string,
  fingerprint: string,
  webhook: AcceptedWebhook,
  deps: AcceptWebhookDeps,
): Promise<void> {
  const { requestId, transactionNumber, transactionType } = webhook;
  try {
    const recorded = await deps.ledger.complete(partnerId, requestId, claimId, {
      fingerprint,
      requestId,
      transactionNumber,
      transactionType,
    });
    if (!recorded) deps.logger.warn({ partnerId, requestId }, 'request_id completed after its claim was taken over');
  } catch (error) {
    deps.logger.warn(
      { partnerId, requestId, err: describeError(error) },
      'request_id completion not recorded; a retry after the claim TTL finds the event',
    );
  }
}

/** A completed request's answer: the same for the same payload, a conflict for another. */
function answerOf(completion: Completion, fingerprint: string, deps: AcceptWebhookDeps): WebhookOutcome {
  if (completion.fingerprint !== fingerprint) return conflict(deps);
  deps.metrics.replays.inc();
  const { requestId, transactionNumber, transactionType } = completion;
  return { kind: 'replayed', webhook: { requestId, transactionNumber, transactionType } };
}

function conflict(deps: AcceptWebhookDeps): WebhookOutcome {
  deps.metrics.conflicts.inc();
  return { kind: 'conflict' };
}

/** Writes the partner event (acks=all): accepted once durable, unavailable if Kafka is away. */
async function writeDurably(event: EncodedEvent, webhook: AcceptedWebhook, deps: AcceptWebhookDeps): Promise<WebhookOutcome> {
  const started = process.hrtime.bigint();
  const written = await deps.events.write(webhook.transactionNumber, event);
  if (written === 'unavailable') return { kind: 'unavailable', message: OutcomeMessages.kafkaUnavailable };
  deps.metrics.produceSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
  return { kind: 'accepted', webhook };
}
