/*
 * What is written of what became of one callback record: its outcome on callback-outcomes, and
 * the record itself into its next retry tier or the dead-letter topic with the headers that say why
 * (spec 8; Spring's dead-letter headers, dead-letter-headers.ts). The ConcurrentConsumer writes
 * them in the member's next transaction. Counts each in the metrics.
 */
import {
  originHeaders,
  originOf,
  retryHeaders,
  type AvroCodec,
  type ConsumedRecord,
  type IHeaders,
  type Logger,
  type Origin,
  type OutputRecord,
  type RetryHistory,
  type RetryTiers,
} from '@hookstream/shared';
import type { CallbackRequest, RequestHeaders } from '../domain/deliver-callback';
import type { Disposition } from '../domain/disposition';
import type { CallbackSenderMetrics } from '../metrics';
import { DeadLetterIdentityHeaders, deadLetterHeaders } from './dead-letter-headers';

/** Real topic names. */
export interface CallbackTopics {
  requests: string;
  outcomes: string;
  deadLetters: string;
  tiers: RetryTiers;
}

export interface DispositionWriterOptions {
  codec: AvroCodec;
  logger: Logger;
  metrics: CallbackSenderMetrics;
  topics: CallbackTopics;
  now: () => number;
}

/** What one callback-outcomes record says of the attempt besides its kind and number; all null for a decision that made no request. */
interface AttemptFacts {
  httpStatus: number | null;
  errorClass: string | null;
  latencyMs: number | null;
  responseExcerpt: string | null;
  requestHeaders: RequestHeaders | null;
}
const NO_REQUEST: AttemptFacts = { httpStatus: null, errorClass: null, latencyMs: null, responseExcerpt: null, requestHeaders: null };

export class DispositionWriter {
  constructor(private readonly options: DispositionWriterOptions) {}

  /** A record that cannot be decoded: to the dead-letter topic as it is. */
  undecodable(record: ConsumedRecord, reason: string): OutputRecord[] {
    this.options.metrics.deadLetters.inc({ partner: 'unknown', error_class: 'DECODE_ERROR' });
    const why = { errorClass: 'DECODE_ERROR', reason };
    const headers = { ...record.message.headers, ...originHeaders(this.originOf(record)), ...this.dlqHeaders(record, why) };
    return [this.produce(this.options.topics.deadLetters, record, headers)];
  }

  write(record: ConsumedRecord, request: CallbackRequest, history: RetryHistory, d: Disposition): Promise<OutputRecord[]> {
    const { metrics, topics } = this.options;
    const { message } = record;
    const partner = request.partner_id;
    const now = this.options.now();
    const outcome = (kind: string, attempt: number, facts: AttemptFacts): Promise<OutputRecord> =>
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
            ? outcome('SKIPPED_CIRCUIT_OPEN', d.attempts + 1, { ...NO_REQUEST, errorClass: d.errorClass })
            : outcome('FAILED_ATTEMPT', d.attempts, d),
          Promise.resolve(this.produce(topics.tiers.topicOf(d.tier), record, headers)),
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
          ...this.dlqHeaders(record, d),
        };
        return Promise.all([
          ...(d.latencyMs !== null ? [outcome('FAILED_ATTEMPT', d.attempts, d)] : []),
          // The answer's excerpt and the request's headers are on the FAILED_ATTEMPT above: the dead-lettering is no send of its own.
          outcome('DEAD_LETTERED', d.attempts, { ...NO_REQUEST, httpStatus: d.httpStatus, errorClass: d.errorClass }),
          Promise.resolve(this.produce(topics.deadLetters, record, headers)),
        ]);
      }
    }
  }

  /** The record as it was read, with new headers, for another topic. */
  private produce(topic: string, { message }: ConsumedRecord, headers: IHeaders): OutputRecord {
    return { topic, message: { key: message.key ?? null, value: message.value, headers } };
  }

  /** Where the delivery was first read, carried from tier to tier. */
  private originOf(record: ConsumedRecord): Origin {
    return originOf(record, this.options.topics.tiers.isTier(record.topic));
  }

  private dlqHeaders(record: ConsumedRecord, why: { errorClass: string; reason: string }): IHeaders {
    const origin = this.originOf(record);
    return deadLetterHeaders({
      originalTopic: origin.topic,
      originalPartition: origin.partition,
      originalOffset: BigInt(origin.offset),
      originalTimestamp: BigInt(record.message.timestamp),
      errorClass: why.errorClass,
      reason: why.reason,
    });
  }
}
