import { randomUUID } from 'node:crypto';
import {
  KafkaUnavailableError,
  RegistryUnavailableError,
  isKafkaClientError,
  isRetryable,
  type AvroCodec,
  type RecordWriter,
  type Partner,
} from '@hookstream/shared';
import { ledgerKey, type Completion } from '../idempotency/ledger-records';
import type { IdempotencyLedger } from '../idempotency/ledger';
import type { IngressMetrics } from '../metrics';
import { OutcomeMessages, type AcceptedWebhook, type WebhookOutcome } from './webhook-outcome';
import type { WebhookPayload } from './webhook-payload';

export interface AcceptWebhookDeps {
  ledger: IdempotencyLedger;
  codec: AvroCodec;
  /** Real topic names. */
  topics: { partnerEvents: string };
  /** Idempotent producer (acks=all) for partner events. */
  producer: RecordWriter;
  instanceId: string;
  /** How long a duplicate waits for an in-flight original, and a claim to come back. */
  duplicateWaitMs: number;
  metrics: IngressMetrics;
  now?: () => number;
}

/**
 * Accepts one validated webhook (spec 4.2): accepted only once its partner-events record is
 * durable. With a request_id the idempotency table of spec 4.2 holds across replicas and restarts:
 * 1. a completed key: the first acceptance's answer for the same payload, a conflict for another;
 * 2. a key in flight: a conflict for another payload; the same payload waits for the outcome (bounded);
 * 3. otherwise the request claims the key (IdempotencyLedger.claim); the winner writes the partner
 *    event, which is also the key's completion; a lost claim goes back to 1 or 2.
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
  let event: Buffer;
  try {
    event = await deps.codec.encode(deps.topics.partnerEvents, {
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
  } catch (error) {
    if (error instanceof RegistryUnavailableError || isRetryable(error))
      return { kind: 'unavailable', message: OutcomeMessages.registryUnavailable };
    throw error;
  }
  const writeEvent = () =>
    writeDurably(
      () => deps.producer.send({ topic: deps.topics.partnerEvents, key: payload.transaction_number, value: event }),
      webhook,
      deps,
    );
  if (requestId === undefined) return writeEvent();

  const key = ledgerKey(partner.partner_id, requestId);
  for (let round = 0; round < 3; round++) {
    const known = await answerFromLedger(key, fingerprint, deps, now());
    if (known) return known;
    const claimStarted = process.hrtime.bigint();
    const claimed = await deps.ledger.claim(partner.partner_id, requestId, fingerprint, deps.duplicateWaitMs, now());
    if (claimed.kind === 'unavailable') return claimed;
    deps.metrics.claimSeconds.observe(Number(process.hrtime.bigint() - claimStarted) / 1e9);
    if (claimed.kind === 'won') return writeEvent();
    // Another claim came first: answer as it says.
  }
  return { kind: 'in-progress', message: OutcomeMessages.beingProcessed };
}

/** Steps 1 and 2: undefined when the request must claim the key itself. */
async function answerFromLedger(
  key: string,
  fingerprint: string,
  deps: AcceptWebhookDeps,
  now: number,
): Promise<WebhookOutcome | undefined> {
  const state = deps.ledger.stateOf(key, now);
  switch (state.kind) {
    case 'free':
      return undefined;
    case 'completed':
      return answerOf(state.completion, fingerprint, deps);
    case 'claimed': {
      if (state.claim.fingerprint !== fingerprint) return conflict(deps);
      const completion = await deps.ledger.waitForCompletion(key, deps.duplicateWaitMs);
      return completion ? answerOf(completion, fingerprint, deps) : { kind: 'in-progress', message: OutcomeMessages.stillProcessing };
    }
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
async function writeDurably(write: () => Promise<unknown>, webhook: AcceptedWebhook, deps: AcceptWebhookDeps): Promise<WebhookOutcome> {
  const started = process.hrtime.bigint();
  try {
    await write();
  } catch (error) {
    // Any failed write is "not stored, retry later" for a partner, whatever the broker said.
    if (error instanceof KafkaUnavailableError || isRetryable(error) || isKafkaClientError(error))
      return { kind: 'unavailable', message: OutcomeMessages.kafkaUnavailable };
    throw error;
  }
  deps.metrics.produceSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
  return { kind: 'accepted', webhook };
}
