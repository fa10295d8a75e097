/**
 * One `callback-requests` record (schemas/callback-request.avsc): a callback to deliver, written
 * by the policy-status-consumer, read by the callback-sender, carried unchanged through the retry
 * tiers and into the dead-letter topic.
 */
export interface CallbackRequestValue {
  delivery_id: string;
  event_id: string;
  partner_id: string;
  endpoint_id: string;
  policy_number: string;
  policy_version: number;
  policy_status: string;
  /** The exact JSON text sent to the partner (before an MD5 body-field signature is added). */
  body: string;
  created_at: number;
  /** What asked for it besides a policy status change (CallbackTriggers); null or absent for one of those. */
  trigger?: CallbackTrigger | null;
}

/**
 * Why a callback was asked for other than by a policy status change (schemas/callback-request.avsc):
 * RETRY_NOW, one more attempt of a failing delivery now (same delivery id, one attempt, no tier or
 * dead letter of its own); TEST, a sample callback to try an endpoint (never ordered, retried or
 * dead-lettered).
 */
export const CallbackTriggers = { retryNow: 'RETRY_NOW', test: 'TEST' } as const;
export type CallbackTrigger = (typeof CallbackTriggers)[keyof typeof CallbackTriggers];

/**
 * Kafka headers of every callback-requests record (besides its Avro value): partner, endpoint and
 * policy version, so that a reader judging order (latest-wins) need not decode the value.
 */
export const CallbackRequestHeaders = {
  partnerId: 'hookstream-partner-id',
  endpointId: 'hookstream-endpoint-id',
  policyVersion: 'hookstream-policy-version',
  /**
   * Only on a delivery the fan-out made: the Kafka timestamp (epoch ms, decimal) of the policy-status
   * record it was made from, the core system's publish time, which the delivery log's timeline
   * starts from. A header, not a field: the value's schema stays as it is, and a retry tier or a
   * dead letter carries it on with every other header.
   */
  publishedAt: 'hookstream-published-at',
  /**
   * Only on a delivery `hookstream dlq replay` re-queued: how many times it has been replayed. The
   * sender carries every header of a record into its retry tiers and dead letter, so the next
   * replay reads the count there (and refuses past DLQ_MAX_REPLAYS unless --force).
   */
  replayCount: 'hookstream-replay-count',
  /** Only on a retry now or a test: the value's trigger, so the sender's version record can leave a test out without decoding it. */
  trigger: 'hookstream-trigger',
} as const;
