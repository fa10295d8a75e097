import { AvroInvalidError } from '@hookstream/errors';
import { CallbackRequestHeaders, type PolicyStatusEventValue } from '@hookstream/contract';
import { fitsInBatch, recordSizeBound, type AvroCodec, type KafkaMessage, type OutputRecord } from '@hookstream/kafka';
import { type Logger } from '@hookstream/runtime';
import { type PartnerDirectory } from '@hookstream/partners';
import { planCallbacks, type CallbackPlan, type DeadLetterClass } from '../domain/plan-callbacks';
import type { PolicyStatusMetrics } from '../metrics';

export interface EventRecordsOptions {
  codec: AvroCodec;
  partners: PartnerDirectory;
  logger: Logger;
  metrics: PolicyStatusMetrics;
  /** Real topic names. */
  topics: { policyStatus: string; callbackRequests: string; deadLetters: string };
  /** How long an event for an unknown partner waits for partner-config to learn it. */
  unknownPartnerGraceMs: number;
  /** The most one write may carry: the output topics' smallest max.message.bytes. */
  maxWriteBytes: number;
  now: () => number;
}

/**
 * What one policy-status record becomes (spec 4.1, 6): decoded, its partner found, planned
 * (domain/plan-callbacks), and encoded as one callback request per endpoint, with the headers the
 * sender's latest-wins ordering reads; or, when it can never be processed, one dead letter with
 * the reason. Kafka or the registry being away is thrown, so the batch is read again.
 */
export class EventRecords {
  constructor(private readonly options: EventRecordsOptions) {}

  /**
   * The records of `message`. `unknownPartners` lives for one batch: a partner not found once is
   * not waited for again in the same batch, so a batch of events for a partner that does not exist
   * waits once, not per event.
   */
  async of(partition: number, message: KafkaMessage, unknownPartners: Set<string>): Promise<OutputRecord[]> {
    return this.writable(partition, message, await this.process(partition, message, unknownPartners));
  }

  /** The records one policy-status record turns into. */
  private async process(partition: number, message: KafkaMessage, unknownPartners: Set<string>): Promise<OutputRecord[]> {
    const { metrics, topics } = this.options;
    let event: PolicyStatusEventValue;
    try {
      if (!message.value) throw new AvroInvalidError('the record has no value');
      event = (await this.options.codec.decode(message.value, topics.policyStatus)) as PolicyStatusEventValue;
    } catch (error) {
      if (!(error instanceof AvroInvalidError)) throw error; // the registry is down: retry the batch
      return [await this.deadLetter(partition, message, 'DECODE_ERROR', error.message)];
    }
    const partner = await this.partnerOf(event.partner_id, unknownPartners);
    const plan: CallbackPlan = planCallbacks(event, partner, this.options.now());
    switch (plan.kind) {
      case 'no-target':
        metrics.events.inc({ outcome: 'no_target' });
        return [];
      case 'dead-letter':
        return [await this.deadLetter(partition, message, plan.errorClass, plan.reason, event)];
      case 'callbacks': {
        metrics.events.inc({ outcome: 'callbacks' });
        metrics.callbackRequests.inc({ partner: event.partner_id }, plan.requests.length);
        return Promise.all(
          plan.requests.map(async (request) => ({
            topic: topics.callbackRequests,
            message: {
              key: request.policy_number,
              value: await this.options.codec.encode(topics.callbackRequests, request),
              // What latest-wins ordering needs, readable without decoding the value (see the sender's LatestVersions).
              headers: {
                [CallbackRequestHeaders.partnerId]: request.partner_id,
                [CallbackRequestHeaders.endpointId]: request.endpoint_id,
                [CallbackRequestHeaders.policyVersion]: String(request.policy_version),
              },
            },
          })),
        );
      }
    }
  }

  /**
   * The outputs of one event if every one of them can be written; otherwise the event goes to the
   * dead-letter topic instead (a record over the limit would fail every transaction that holds it).
   */
  private async writable(partition: number, message: KafkaMessage, outputs: OutputRecord[]): Promise<OutputRecord[]> {
    const tooLarge = outputs.find((output) => !fitsInBatch(output.message, this.options.maxWriteBytes));
    if (!tooLarge) return outputs;
    const size = recordSizeBound(tooLarge.message);
    const reason = `a record for ${tooLarge.topic} would take ${size} bytes; the topic accepts at most ${this.options.maxWriteBytes} (max.message.bytes)`;
    return [await this.deadLetter(partition, message, 'RECORD_TOO_LARGE', reason)];
  }

  /** The partner, waiting a little (once per batch) for one onboarded just before its first event. */
  private async partnerOf(partnerId: string, unknown: Set<string>) {
    const { partners, unknownPartnerGraceMs } = this.options;
    const partner =
      partners.get(partnerId) ?? (unknown.has(partnerId) ? undefined : await partners.waitFor(partnerId, unknownPartnerGraceMs));
    if (!partner) unknown.add(partnerId);
    return partner;
  }

  private async deadLetter(
    partition: number,
    message: KafkaMessage,
    errorClass: DeadLetterClass,
    reason: string,
    event?: PolicyStatusEventValue,
  ): Promise<OutputRecord> {
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
