import { CallbackRequestHeaders, type CallbackRequestValue, type PolicyStatusEventValue } from '@hookstream/contract';
import { fitsInBatch, recordSizeBound, type AvroCodec, type KafkaMessage, type OutputRecord } from '@hookstream/kafka';
import { type Logger } from '@hookstream/runtime';
import type { DeadLetterClass } from '../../domain/plan-callbacks';
import type { PolicyStatusMetrics } from '../../metrics';

export interface PolicyStatusOutputsOptions {
  codec: AvroCodec;
  logger: Logger;
  metrics: PolicyStatusMetrics;
  /** Real topic names. */
  topics: { policyStatus: string; callbackRequests: string; deadLetters: string };
  /** The most one write may carry: the output topics' smallest max.message.bytes. */
  maxWriteBytes: number;
  now: () => number;
}

/** The policy-status record an output stems from. */
export interface SourceRecord {
  partition: number;
  message: KafkaMessage;
}

/**
 * What the policy-status-consumer writes to Kafka: callback requests (with the headers the sender's
 * latest-wins ordering reads) and dead letters with the reason, each within the broker's
 * max.message.bytes.
 */
export class PolicyStatusOutputs {
  constructor(private readonly options: PolicyStatusOutputsOptions) {}

  /** One callback-requests record per request, keyed by policy number; `source` is the policy-status record they were made from. */
  callbackRequests(requests: readonly CallbackRequestValue[], source: SourceRecord): Promise<OutputRecord[]> {
    const { topics, codec } = this.options;
    return Promise.all(
      requests.map(async (request) => ({
        topic: topics.callbackRequests,
        message: {
          key: request.policy_number,
          value: await codec.encode(topics.callbackRequests, request),
          // What latest-wins ordering needs, readable without decoding the value (see the sender's LatestVersions).
          headers: {
            [CallbackRequestHeaders.partnerId]: request.partner_id,
            [CallbackRequestHeaders.endpointId]: request.endpoint_id,
            [CallbackRequestHeaders.policyVersion]: String(request.policy_version),
            // When the core system published the event: where the delivery log's timeline starts.
            [CallbackRequestHeaders.publishedAt]: source.message.timestamp,
          },
        },
      })),
    );
  }

  /**
   * The outputs of one event if every one of them can be written; otherwise the event goes to the
   * dead-letter topic instead (a record over the limit would fail every transaction that holds it).
   */
  async writable(source: SourceRecord, outputs: OutputRecord[]): Promise<OutputRecord[]> {
    const tooLarge = outputs.find((output) => !fitsInBatch(output.message, this.options.maxWriteBytes));
    if (!tooLarge) return outputs;
    const size = recordSizeBound(tooLarge.message);
    const reason = `a record for ${tooLarge.topic} would take ${size} bytes; the topic accepts at most ${this.options.maxWriteBytes} (max.message.bytes)`;
    return [await this.deadLetter(source, 'RECORD_TOO_LARGE', reason)];
  }

  /** The dead letter of `source`, counted and logged; it points at the original when a copy would not fit. */
  async deadLetter(
    source: SourceRecord,
    errorClass: DeadLetterClass,
    reason: string,
    event?: PolicyStatusEventValue,
  ): Promise<OutputRecord> {
    const { partition, message } = source;
    const { topics, metrics } = this.options;
    metrics.events.inc({ outcome: 'dead_lettered' });
    metrics.deadLetters.inc({ error_class: errorClass });
    this.options.logger.warn(
      { partition, offset: message.offset, errorClass, eventId: event?.event_id, partnerId: event?.partner_id },
      `policy-status record dead-lettered: ${reason}`,
    );
    const deadLetter = (originalValue: Buffer, why: string) =>
      this.options.codec.encode(topics.deadLetters, {
        original_topic: topics.policyStatus,
        original_partition: partition,
        original_offset: Number(message.offset),
        original_key: message.key ?? null,
        original_value: originalValue,
        reason: why,
        error_class: errorClass,
        failed_at: this.options.now(),
        event_id: event?.event_id ?? null,
        partner_id: event?.partner_id ?? null,
      });
    const original = message.value ?? Buffer.alloc(0);
    let value = await deadLetter(original, reason);
    if (!fitsInBatch({ key: message.key ?? null, value }, this.options.maxWriteBytes)) {
      // The copy of the original would not fit: the dead letter points at it instead.
      const note = `${reason}; the original value (${original.length} bytes) is too large to copy here: read it at ${topics.policyStatus} partition ${partition} offset ${message.offset}`;
      value = await deadLetter(Buffer.alloc(0), note);
    }
    return { topic: topics.deadLetters, message: { key: message.key ?? null, value } };
  }
}
