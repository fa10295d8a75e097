/*
 * What is written of what became of one callback record: its outcome on callback-outcomes, and
 * the record itself into its next retry tier or the dead-letter topic with the headers that say why
 * (spec 8; Spring's dead-letter headers, @hookstream/kafka's deadLetterHeaders). The GroupMember writes them in
 * the member's next transaction. Counts each in the metrics. What every tiered service writes alike
 * (undecodable records, dead-letter headers, origins) is @hookstream/kafka's TieredDispositionWriter.
 */
import {
  DeadLetterIdentityHeaders,
  TieredDispositionWriter,
  retryHeaders,
  type ConsumedRecord,
  type TieredDispositionWriterOptions,
  type IHeaders,
  type OutputRecord,
  type RetryHistory,
  type RetryTiers,
} from '@hookstream/kafka';
import type { CallbackRequest, RequestHeaders } from '../../domain/deliver-callback';
import type { Disposition } from '../../domain/disposition';
import type { CallbackSenderMetrics } from '../../metrics';

/** Real topic names. */
export interface CallbackTopics {
  requests: string;
  outcomes: string;
  deadLetters: string;
  tiers: RetryTiers;
}

export type DispositionWriterOptions = TieredDispositionWriterOptions<CallbackSenderMetrics, CallbackTopics>;

/** What one callback-outcomes record says of the attempt besides its kind and number; all null for a decision that made no request. */
interface AttemptFacts {
  httpStatus: number | null;
  errorClass: string | null;
  latencyMs: number | null;
  responseExcerpt: string | null;
  requestHeaders: RequestHeaders | null;
}
const NO_REQUEST: AttemptFacts = { httpStatus: null, errorClass: null, latencyMs: null, responseExcerpt: null, requestHeaders: null };

export class DispositionWriter extends TieredDispositionWriter<CallbackSenderMetrics, CallbackTopics> {
  constructor(options: DispositionWriterOptions) {
    super(options, {
      count: () => options.metrics.deadLetters.inc({ partner: 'unknown', error_class: 'DECODE_ERROR' }),
      // Its dead letter names where it was first read, as every dead letter of a callback does.
      origin: 'first-read',
    });
  }

  write(record: ConsumedRecord, request: CallbackRequest, history: RetryHistory, d: Disposition): Promise<OutputRecord[]> {
    const { metrics, topics } = this.options;
    const { message } = record;
    const partner = request.partner_id;
    const now = this.options.now();
    const outcome = (kind: string, attempt: number, facts: AttemptFacts, nextAttemptAt: number | null = null): Promise<OutputRecord> =>
      this.options.codec
        .encode(topics.outcomes, {
          delivery_id: request.delivery_id,
          event_id: request.event_id,
          partner_id: partner,
          endpoint_id: request.endpoint_id,
          policy_number: request.policy_number,
          policy_version: request.policy_version,
          attempt,
          outcome: kind,
          http_status: facts.httpStatus,
          error_class: facts.errorClass,
          latency_ms: facts.latencyMs,
          recorded_at: now,
          tier: topics.tiers.tierOf(record.topic) ?? 0,
          response_excerpt: facts.responseExcerpt,
          request_headers_json: facts.requestHeaders === null ? null : JSON.stringify(facts.requestHeaders),
          trigger: request.trigger ?? null,
          next_attempt_at: nextAttemptAt,
        })
        .then((value) => ({ topic: topics.outcomes, message: { key: request.policy_number, value } }));
    const observe = (latencyMs: number | null) => latencyMs !== null && metrics.attemptSeconds.observe({ partner }, latencyMs / 1000);

    switch (d.kind) {
      case 'delivered':
        observe(d.latencyMs);
        metrics.attempts.inc({ partner, outcome: 'delivered' });
        return Promise.all([outcome('DELIVERED', d.attempt, { ...d, errorClass: null })]);
      case 'superseded':
        metrics.superseded.inc({ partner });
        return Promise.all([outcome('SUPERSEDED', d.attempts, NO_REQUEST)]);
      case 'already-delivered':
        // No attempt (the failure share counts attempts): the outcome on callback-outcomes is its record,
        // numbered as the attempt it did not make (as a skip is).
        return Promise.all([outcome('ALREADY_DELIVERED', d.attempts + 1, NO_REQUEST)]);
      case 'attempted':
        // A retry now's or a test's one attempt, failed: its outcome and nothing else (requested-attempt.ts).
        observe(d.latencyMs);
        metrics.attempts.inc({ partner, outcome: 'failed' });
        return Promise.all([outcome('FAILED_ATTEMPT', d.attempt, d)]);
      case 'retry': {
        const headers: IHeaders = {
          // A skipped delivery keeps its last failure's headers: only an attempt records one.
          ...message.headers,
          ...retryHeaders({
            origin: this.originOf(record),
            attempts: d.attempts,
            skips: d.skips,
            // Skipped or failed, the delivery has been waiting since then (the skips' deadline counts from it).
            firstFailureAt: history.firstFailureAt,
            dueAt: d.dueAt,
            ...(d.skipped ? {} : { lastError: d.lastError ?? '', attempt: { httpStatus: d.httpStatus, errorClass: d.errorClass } }),
            now,
          }),
        };
        if (d.skipped) {
          metrics.attempts.inc({ partner, outcome: 'skipped_circuit_open' });
        } else {
          observe(d.latencyMs);
          metrics.attempts.inc({ partner, outcome: 'failed' });
          metrics.retries.inc({ tier: String(d.tier) });
          this.options.logger.info(
            { partnerId: partner, deliveryId: request.delivery_id, attempt: d.attempts, error: d.lastError, tier: d.tier },
            'callback attempt failed',
          );
        }
        return Promise.all([
          d.skipped
            ? outcome('SKIPPED_CIRCUIT_OPEN', d.attempts + 1, { ...NO_REQUEST, errorClass: d.errorClass }, d.dueAt)
            : outcome('FAILED_ATTEMPT', d.attempts, d, d.dueAt),
          Promise.resolve(this.asRead(topics.tiers.topicOf(d.tier), record, headers)),
        ]);
      }
      case 'dead-letter': {
        observe(d.latencyMs);
        metrics.deadLetters.inc({ partner, error_class: d.errorClass });
        if (d.latencyMs !== null) metrics.attempts.inc({ partner, outcome: 'failed' });
        this.options.logger.warn(
          { partnerId: partner, deliveryId: request.delivery_id, attempts: d.attempts, errorClass: d.errorClass },
          `callback dead-lettered: ${d.reason}`,
        );
        const headers: IHeaders = {
          ...message.headers,
          ...retryHeaders({
            origin: this.originOf(record),
            attempts: d.attempts,
            firstFailureAt: history.firstFailureAt,
            lastError: d.reason,
            // A dead-lettering after a send: what that send got (else the last attempt's headers stay as they came).
            ...(d.latencyMs !== null ? { attempt: { httpStatus: d.httpStatus, errorClass: d.errorClass } } : {}),
            now,
          }),
          [DeadLetterIdentityHeaders.partnerId]: partner,
          [DeadLetterIdentityHeaders.eventId]: request.event_id,
          [DeadLetterIdentityHeaders.deliveryId]: request.delivery_id,
          ...this.deadLetterHeaders(this.originOf(record), record, d),
        };
        return Promise.all([
          ...(d.latencyMs !== null ? [outcome('FAILED_ATTEMPT', d.attempts, d)] : []),
          // The answer's excerpt and the request's headers are on the FAILED_ATTEMPT above: the dead-lettering is no send of its own.
          outcome('DEAD_LETTERED', d.attempts, { ...NO_REQUEST, httpStatus: d.httpStatus, errorClass: d.errorClass }),
          Promise.resolve(this.asRead(topics.deadLetters, record, headers)),
        ]);
      }
    }
  }
}
