import { randomUUID } from 'node:crypto';
import {
  KafkaUnavailableError,
  RegistryUnavailableError,
  isRetryable,
  type AvroCodec,
  type BatchingProducer,
  type Partner,
} from '@hookstream/shared';
import { InboundError, InboundErrorCodes, successBody } from '../http/responses';
import { ledgerKey, ledgerPartition, type Claim, type IdempotencyLedger } from '../idempotency/ledger';
import type { IngressMetrics } from '../metrics';
import type { WebhookPayload } from './webhook-payload';

export interface AcceptWebhookDeps {
  ledger: IdempotencyLedger;
  codec: AvroCodec;
  /** Real topic names. */
  topics: { partnerEvents: string; ledger: string };
  /** Idempotent producer (acks=all) for partner events. */
  producer: BatchingProducer;
  /**
   * Idempotent producer (acks=all) for claims: a producer of their own, so that a claim never
   * queues behind a batch of partner events (a BatchingProducer has one request in flight).
   */
  claimsProducer: BatchingProducer;
  instanceId: string;
  /** How long a duplicate waits for an in-flight original. */
  duplicateWaitMs: number;
  /** A claim older than this without a completion is abandoned (its replica died): a retry claims anew. */
  claimTtlMs: number;
  metrics: IngressMetrics;
  now?: () => number;
}

/** What the HTTP layer sends: the exact JSON text (stored responses are replayed byte for byte). */
export interface Accepted {
  status: number;
  body: string;
  replayed: boolean;
  requestId: string;
}

/**
 * Accepts one validated webhook (spec 4.2): 200 only once its partner-events record is durable.
 * With a request_id the idempotency table of spec 4.2 holds across replicas and restarts:
 * 1. a completed key answers from the ledger: the stored response for the same payload, 409 for another;
 * 2. a key in flight: 409 for another payload; the same payload waits for the outcome (bounded);
 * 3. otherwise the request claims the key; once its claim is read back from the ledger, the first
 *    live claim in log order is the winner; the winner writes the partner event, which is also
 *    the key's completion (see IdempotencyLedger); the others go back to 1 or 2.
 */
export async function acceptWebhook(
  partner: Partner,
  payload: WebhookPayload,
  fingerprint: string,
  deps: AcceptWebhookDeps,
): Promise<Accepted> {
  const now = deps.now ?? Date.now;
  const receivedAt = now();
  const requestId = payload.request_id;
  const responseRequestId = requestId ?? randomUUID();
  const body = JSON.stringify(successBody(responseRequestId, payload.transaction_number, payload.transaction_type));
  const event = await encodeOrUnavailable(() =>
    deps.codec.encode(deps.topics.partnerEvents, {
      partner_id: partner.partner_id,
      request_id: requestId ?? null,
      transaction_number: payload.transaction_number,
      transaction_type: payload.transaction_type,
      status: payload.status,
      documents: payload.documents.map((d) => ({ type: d.type, url: d.url, filename: d.filename ?? null })),
      received_at: receivedAt,
      payload_fingerprint: fingerprint,
      ingress_instance: deps.instanceId,
    }),
  );
  const eventMessage = { key: payload.transaction_number, value: event };

  if (requestId === undefined) {
    // No request_id: every request is a new webhook (spec 4.2).
    await produceOrUnavailable(() => deps.producer.send({ topic: deps.topics.partnerEvents, ...eventMessage }));
    return { status: 200, body, replayed: false, requestId: responseRequestId };
  }

  const key = ledgerKey(partner.partner_id, requestId);
  const partition = ledgerPartition(key, deps.ledger.partitions);
  for (let round = 0; round < 3; round++) {
    const known = answerFromLedger(key, fingerprint, deps, now());
    if (known) return { ...(await known), requestId };

    const claim = deps.ledger.newClaim(fingerprint, deps.instanceId, now());
    const claimValue = await encodeOrUnavailable(() =>
      deps.codec.encode(deps.topics.ledger, deps.ledger.claimRecord(partner.partner_id, requestId, claim)),
    );
    const claimStarted = process.hrtime.bigint();
    const claimedBack = deps.ledger.waitForClaim(claim.claimId, deps.duplicateWaitMs);
    claimedBack.catch(() => undefined); // observed below; never an unhandled rejection
    await produceOrUnavailable(() =>
      deps.claimsProducer.send({ topic: deps.topics.ledger, partition, key: `C:${key}`, value: claimValue }),
    );
    await claimedBack.catch((error: unknown) => {
      throw new InboundError(
        503,
        InboundErrorCodes.UNAVAILABLE,
        `could not confirm the request_id claim: ${(error as Error).message}; retry later`,
        5,
      );
    });

    deps.metrics.claimSeconds.observe(Number(process.hrtime.bigint() - claimStarted) / 1e9);
    if (!isWinner(deps.ledger.entry(key)?.winner, claim)) continue; // another claim came first: answer as it says
    if (deps.ledger.entry(key)?.winnerTookOver) {
      // The abandoned claimant may have written its event after all: see it before writing again.
      await deps.ledger.completionsCaughtUp(deps.duplicateWaitMs).catch((error: unknown) => {
        throw new InboundError(
          503,
          InboundErrorCodes.UNAVAILABLE,
          `could not check the request_id ledger: ${(error as Error).message}; retry later`,
          5,
        );
      });
      if (deps.ledger.entry(key)?.completion) continue;
    }
    const started = process.hrtime.bigint();
    await produceOrUnavailable(() => deps.producer.send({ topic: deps.topics.partnerEvents, ...eventMessage }));
    deps.metrics.produceSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    return { status: 200, body, replayed: false, requestId };
  }
  throw new InboundError(503, InboundErrorCodes.IN_PROGRESS, 'the request_id is being processed; retry later', 1);
}

function isWinner(winner: Claim | undefined, claim: Claim): boolean {
  return winner?.claimId === claim.claimId;
}

/** Steps 1 and 2: undefined when the request must claim the key itself. */
function answerFromLedger(
  key: string,
  fingerprint: string,
  deps: AcceptWebhookDeps,
  now: number,
): Promise<Omit<Accepted, 'requestId'>> | undefined {
  const entry = deps.ledger.entry(key);
  const conflict = () => {
    deps.metrics.conflicts.inc();
    return new InboundError(409, InboundErrorCodes.IDEMPOTENCY_CONFLICT, 'request_id was already used with a different payload');
  };
  if (entry?.completion) {
    if (entry.completion.fingerprint !== fingerprint) return Promise.reject(conflict());
    deps.metrics.replays.inc();
    return Promise.resolve({ status: entry.completion.responseStatus, body: entry.completion.responseBody, replayed: true });
  }
  const winner = entry?.winner;
  // No claim, or an abandoned one: claim the key (the ledger lets a claim this much younger win).
  if (!winner || now - winner.claimedAt > deps.claimTtlMs) return undefined;
  if (winner.fingerprint !== fingerprint) return Promise.reject(conflict());
  return deps.ledger.waitForCompletion(key, deps.duplicateWaitMs).then((completion) => {
    if (!completion)
      throw new InboundError(503, InboundErrorCodes.IN_PROGRESS, 'the same request_id is still being processed; retry later', 1);
    if (completion.fingerprint !== fingerprint) throw conflict();
    deps.metrics.replays.inc();
    return { status: completion.responseStatus, body: completion.responseBody, replayed: true };
  });
}

async function encodeOrUnavailable(encode: () => Promise<Buffer>): Promise<Buffer> {
  try {
    return await encode();
  } catch (error) {
    if (error instanceof RegistryUnavailableError || isRetryable(error)) {
      throw new InboundError(503, InboundErrorCodes.UNAVAILABLE, 'the schema registry is unavailable; retry later', 5);
    }
    throw error;
  }
}

async function produceOrUnavailable(produce: () => Promise<unknown>): Promise<void> {
  try {
    await produce();
  } catch (error) {
    if (error instanceof KafkaUnavailableError || isRetryable(error)) {
      throw new InboundError(
        503,
        InboundErrorCodes.UNAVAILABLE,
        'the webhook could not be stored durably (Kafka unavailable); retry later',
        5,
      );
    }
    throw error;
  }
}
