/*
 * Writes what became of one callback record: its outcome on callback-outcomes, and the record
 * itself into its next retry tier or the dead-letter topic with the headers that say why
 * (spec 8; Spring's dead-letter headers, dead-letter-headers.ts). Counts each in the metrics.
 */
import type { AvroCodec, RecordWriter, ConsumedRecord, IHeaders, Logger } from '@hookstream/shared';
import type { CallbackRequest } from '../domain/deliver-callback';
import { RetryHeaders, headerText, type RetryHistory } from '../domain/retry-schedule';
import type { Disposition } from '../domain/disposition';
import type { CallbackSenderMetrics } from '../metrics';
import { DeadLetterIdentityHeaders, deadLetterHeaders } from './dead-letter-headers';

/** Real topic names; `retry(tier)` is the topic of retry tier 1…n. */
export interface CallbackTopics {
  requests: string;
  outcomes: string;
  deadLetters: string;
  retry: (tier: number) => string;
  tiers: number;
}

export interface DispositionWriterOptions {
  codec: AvroCodec;
  logger: Logger;
  metrics: CallbackSenderMetrics;
  topics: CallbackTopics;
  /** Idempotent acks=all producer for outcomes, retries and dead letters. */
  producer: RecordWriter;
  /** Whether a topic is a retry tier (its records carry where they were first read). */
  isRetryTier: (topic: string) => boolean;
  now: () => number;
}

/** A write in progress; the record is durably done once all of its writes are. */
type Write = Promise<unknown>;

export class DispositionWriter {
  constructor(private readonly options: DispositionWriterOptions) {}

  /** A record that cannot be decoded: to the dead-letter topic as it is. */
  undecodable(record: ConsumedRecord, reason: string): Write[] {
    this.options.metrics.deadLetters.inc({ partner: 'unknown', error_class: 'DECODE_ERROR' });
    const why = { errorClass: 'DECODE_ERROR', reason };
    return [this.produce(this.options.topics.deadLetters, record, { ...this.carriedHeaders(record), ...this.dlqHeaders(record, why) })];
  }

  write(record: ConsumedRecord, request: CallbackRequest, history: RetryHistory, d: Disposition): Write[] {
    const { metrics, topics } = this.options;
    const { message } = record;
    const partner = request.partner_id;
    const now = this.options.now();
    const outcome = (kind: string, attempt: number, httpStatus: number | null, errorClass: string | null, latencyMs: number | null) =>
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
          http_status: httpStatus,
          error_class: errorClass,
          latency_ms: latencyMs,
          recorded_at: now,
        })
        .then((value) => this.options.producer.send({ topic: topics.outcomes, key: request.policy_number, value }));
    const observe = (latencyMs: number | null) => latencyMs !== null && metrics.attemptSeconds.observe({ partner }, latencyMs / 1000);

    switch (d.kind) {
      case 'delivered':
        observe(d.latencyMs);
        metrics.attempts.inc({ partner, outcome: 'delivered' });
        return [outcome('DELIVERED', d.attempt, d.httpStatus, null, d.latencyMs)];
      case 'superseded':
        metrics.superseded.inc({ partner });
        return [outcome('SUPERSEDED', d.attempts, null, null, null)];
      case 'retry': {
        const headers: IHeaders = {
          ...this.carriedHeaders(record),
          [RetryHeaders.attempts]: String(d.attempts),
          [RetryHeaders.dueAt]: String(d.dueAt),
          [RetryHeaders.skips]: String(d.skips),
          // Skipped or failed, the delivery has been waiting since then (the skips' deadline counts from
          // it); a missing, unreadable or future value starts the wait now, so the deadline always applies.
          [RetryHeaders.firstFailureAt]: String(Math.min(history.firstFailureAt ?? now, now)),
        };
        if (d.skipped) {
          metrics.attempts.inc({ partner, outcome: 'skipped_circuit_open' });
        } else {
          observe(d.latencyMs);
          metrics.attempts.inc({ partner, outcome: 'failed' });
          metrics.retries.inc({ tier: String(d.tier) });
          headers[RetryHeaders.lastFailureAt] = String(now);
          headers[RetryHeaders.lastError] = (d.lastError ?? '').slice(0, 500);
          this.options.logger.info(
            { partnerId: partner, deliveryId: request.delivery_id, attempt: d.attempts, error: d.lastError, tier: d.tier },
            'callback attempt failed',
          );
        }
        return [
          outcome(
            d.skipped ? 'SKIPPED_CIRCUIT_OPEN' : 'FAILED_ATTEMPT',
            d.skipped ? d.attempts + 1 : d.attempts,
            d.httpStatus,
            d.errorClass,
            d.latencyMs,
          ),
          this.produce(topics.retry(d.tier), record, headers),
        ];
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
          ...this.carriedHeaders(record),
          [RetryHeaders.attempts]: String(d.attempts),
          [RetryHeaders.lastFailureAt]: String(now),
          [RetryHeaders.firstFailureAt]: headerText(message.headers, RetryHeaders.firstFailureAt) ?? String(now),
          [RetryHeaders.lastError]: d.reason.slice(0, 500),
          [DeadLetterIdentityHeaders.partnerId]: partner,
          [DeadLetterIdentityHeaders.eventId]: request.event_id,
          [DeadLetterIdentityHeaders.deliveryId]: request.delivery_id,
          ...this.dlqHeaders(record, d),
        };
        return [
          ...(d.latencyMs !== null ? [outcome('FAILED_ATTEMPT', d.attempts, d.httpStatus, d.errorClass, d.latencyMs)] : []),
          outcome('DEAD_LETTERED', d.attempts, d.httpStatus, d.errorClass, null),
          this.produce(topics.deadLetters, record, headers),
        ];
      }
    }
  }

  private produce(topic: string, { message }: ConsumedRecord, headers: IHeaders): Write {
    return this.options.producer.send({ topic, key: message.key ?? null, value: message.value, headers });
  }

  /** Where the delivery was first read, and its identity, carried from tier to tier. */
  private carriedHeaders({ topic, partition, message }: ConsumedRecord): IHeaders {
    const carried = (name: string, fallback: string) => headerText(message.headers, name) ?? fallback;
    const fresh = !this.options.isRetryTier(topic);
    return {
      ...message.headers,
      [RetryHeaders.originalTopic]: fresh ? topic : carried(RetryHeaders.originalTopic, topic),
      [RetryHeaders.originalPartition]: fresh ? String(partition) : carried(RetryHeaders.originalPartition, String(partition)),
      [RetryHeaders.originalOffset]: fresh ? message.offset : carried(RetryHeaders.originalOffset, message.offset),
    };
  }

  private dlqHeaders(record: ConsumedRecord, why: { errorClass: string; reason: string }): IHeaders {
    const original = this.carriedHeaders(record);
    return deadLetterHeaders({
      originalTopic: String(original[RetryHeaders.originalTopic]),
      originalPartition: Number(String(original[RetryHeaders.originalPartition])),
      originalOffset: BigInt(String(original[RetryHeaders.originalOffset])),
      originalTimestamp: BigInt(record.message.timestamp),
      errorClass: why.errorClass,
      reason: why.reason,
    });
  }
}
