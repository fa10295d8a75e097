import type { PayloadProblem } from './webhook-payload';

/**
 * What receiving one webhook came to, in the domain's words; the HTTP entry maps each to the
 * contract's response (entry/http/responses.ts): accepted and replayed → 200 with the 2.3 body,
 * invalid → 400, conflict → 409, in progress and unavailable → 503 with Retry-After.
 */

/** What a 2.3 body is built from, for a live answer and a replay alike (so both are the same bytes). */
export interface AcceptedWebhook {
  requestId: string;
  transactionNumber: string;
  transactionType: 'POLICY' | 'CLAIM';
}

export type WebhookOutcome =
  /** The body's fields break the rules of spec 2.2 (webhook-payload.ts): every problem, by field path. */
  | { kind: 'invalid'; problems: readonly PayloadProblem[] }
  /** Durably written now (acks=all). */
  | { kind: 'accepted'; webhook: AcceptedWebhook }
  /** The same request_id and payload were accepted before: the first acceptance's answer. */
  | { kind: 'replayed'; webhook: AcceptedWebhook }
  /** The request_id was used with another payload (do not retry). */
  | { kind: 'conflict' }
  /** The same request_id is still being processed elsewhere. */
  | { kind: 'in-progress'; message: string }
  /** Kafka, the registry or the request_id ledger's store cannot give a durable answer now. */
  | { kind: 'unavailable'; message: string };

/** The messages of the outcomes a partner sees (kept word for word: partners may log or match them). */
export const OutcomeMessages = {
  registryUnavailable: 'the schema registry is unavailable; retry later',
  kafkaUnavailable: 'the webhook could not be stored durably (Kafka unavailable); retry later',
  storeUnavailable: 'the request_id ledger is unavailable (its database does not answer); retry later',
  ledgerUnchecked: (why: string) => `could not check the request_id ledger: ${why}; retry later`,
  stillProcessing: 'the same request_id is still being processed; retry later',
  beingProcessed: 'the request_id is being processed; retry later',
  notStoredInTime: 'the webhook could not be stored durably in time; retry later',
} as const;
