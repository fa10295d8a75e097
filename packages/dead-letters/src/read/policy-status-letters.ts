import { AvroInvalidError, describeError } from '@hookstream/errors';
import { type Message } from '@hookstream/kafka';
import { TopicNames } from '@hookstream/kafka';
import { endpointWants } from '@hookstream/partners';
import { type Partner } from '@hookstream/partners';
import { buildCallbackBody } from '@hookstream/contract';
import { type PolicyStatusEventValue } from '@hookstream/contract';
import { coordinatesOf, letterAt, undecodable, type DeadLetter, type DlqRecord } from './dead-letter';
import { ReplayHeaders, type DeadLetterTopic, type LetterCodecs, type LetterDetails } from './dead-letter-topic';
import { describeHeaders } from './letter-notes';

/** A policy-status-dlq value (schemas/policy-status-dead-letter.avsc). */
interface PolicyStatusDeadLetterValue {
  original_topic: string;
  original_partition: number;
  original_offset: number;
  original_key: Buffer | null;
  original_value: Buffer;
  reason: string;
  error_class: string;
  failed_at: number;
  event_id: string | null;
  partner_id: string | null;
}

/**
 * policy-status-dlq: policy-status events the consumer could not turn into callbacks, each with
 * the raw record and why (docs/outbound.md). A replay re-publishes the original key and value on
 * policy-status, so the consumer fans the event out again once the cause is fixed (a partner
 * onboarded late, enabled again, a mapping corrected); its callbacks get the same delivery ids.
 */
export class PolicyStatusLetters implements DeadLetterTopic {
  readonly choice = 'policy-status' as const;
  readonly source = TopicNames.policyStatusDlq;
  readonly target = TopicNames.policyStatus;
  readonly schemaTopics = [TopicNames.policyStatusDlq, TopicNames.policyStatus];
  readonly ordered = false;
  /** The decoded value of each record `decode` accepted, for its re-queue. */
  private readonly originals = new WeakMap<DlqRecord, PolicyStatusDeadLetterValue>();

  constructor(private readonly codecs: LetterCodecs) {}

  async decode(record: DlqRecord): Promise<DeadLetter> {
    const letter = letterAt(this.source, record);
    const deadLetter = await this.decodeValue<PolicyStatusDeadLetterValue>(record.value, this.source);
    if (typeof deadLetter === 'string') {
      return undecodable(letter, deadLetter);
    }
    this.originals.set(record, deadLetter);
    const withReason: DeadLetter = {
      ...letter,
      partnerId: deadLetter.partner_id,
      eventId: deadLetter.event_id,
      errorClass: deadLetter.error_class,
      reason: deadLetter.reason,
    };
    if (deadLetter.original_value.length === 0) {
      const where = `${deadLetter.original_topic} ${deadLetter.original_partition}:${deadLetter.original_offset}`;
      return { ...withReason, unreplayable: `the dead letter does not carry the original event (see its reason); it was at ${where}` };
    }
    const event = await this.decodeValue<PolicyStatusEventValue>(deadLetter.original_value, this.target);
    if (typeof event === 'string') {
      const why = `the original event cannot be decoded (${event})`;
      return { ...withReason, undecodable: why, unreplayable: `${why}: re-publishing it would fail the same way` };
    }
    return {
      ...withReason,
      partnerId: event.partner_id,
      eventId: event.event_id,
      policyNumber: event.policy.policy_number,
      policyStatus: event.policy.status,
      policyVersion: event.version,
      createdAt: event.occurred_at,
    };
  }

  requeue(letter: DeadLetter, record: DlqRecord, replay: { replayCount: number; replayId: string }): Message {
    const value = this.cachedOriginal(record);
    return {
      key: value.original_key,
      value: value.original_value,
      headers: {
        [ReplayHeaders.replayId]: replay.replayId,
        [ReplayHeaders.replayedFrom]: `${this.source} ${coordinatesOf(letter)}`,
      },
    };
  }

  async details(letter: DeadLetter, record: DlqRecord, partner: Partner | undefined): Promise<LetterDetails> {
    const deadLetter = await this.decodeValue<PolicyStatusDeadLetterValue>(record.value, this.source);
    const decoded = typeof deadLetter === 'string' ? undefined : deadLetter;
    const event = decoded && (await this.decodeValue<PolicyStatusEventValue>(decoded.original_value, this.target));
    return {
      headers: describeHeaders(record.headers),
      history: {
        failed_at: decoded ? new Date(decoded.failed_at).toISOString() : null,
        original: decoded ? `${decoded.original_topic} ${decoded.original_partition}:${decoded.original_offset}` : null,
        occurred_at: letter.createdAt === null ? null : new Date(letter.createdAt).toISOString(),
      },
      bodies: typeof event === 'object' ? bodiesNow(event, partner) : [],
      outcomesOf:
        letter.eventId && letter.policyNumber ? { field: 'event_id', id: letter.eventId, policyNumber: letter.policyNumber } : null,
    };
  }

  /** The decoded dead letter of a record `decode` accepted; requeue runs only for those. */
  private cachedOriginal(record: DlqRecord): PolicyStatusDeadLetterValue {
    const cached = this.originals.get(record);
    if (!cached) throw new Error(`policy-status-dlq ${coordinatesOf(record)} was not decoded before its replay`);
    return cached;
  }

  private async decodeValue<T>(value: Buffer | null, logicalTopic: string): Promise<T | string> {
    try {
      if (!value || value.length === 0) throw new AvroInvalidError('the record has no value');
      return (await this.codecs.codec.decode(value, this.codecs.topicName(logicalTopic))) as T;
    } catch (error) {
      if (error instanceof AvroInvalidError) return error.message;
      throw error;
    }
  }
}

/** The body each endpoint of the partner would get if the event were fanned out now (plan-callbacks.ts), or why none. */
function bodiesNow(event: PolicyStatusEventValue, partner: Partner | undefined): LetterDetails['bodies'] {
  const none = (note: string) => [{ endpoint: '-', url: null, body: null, note }];
  if (!partner)
    return none(`partner "${event.partner_id}" is not in partner-config: a replay would be dead-lettered again (UNKNOWN_PARTNER)`);
  if (partner.status !== 'ACTIVE') return none(`partner "${partner.partner_id}" is disabled: a replay would be dead-lettered again`);
  const { policy } = event;
  const targets = partner.callback_endpoints.filter((e) => endpointWants(e, policy.status, policy.product_code));
  if (targets.length === 0) return none('no endpoint of the partner wants this status and product: a replay would send nothing');
  let body: string;
  try {
    body = buildCallbackBody(policy, partner.body_mapping);
  } catch (error) {
    return none(`the partner's body mapping cannot build it (${describeError(error)}): a replay would be dead-lettered again`);
  }
  const note = `built now with the partner's current mapping (${partner.body_mapping.shape}); signed at send time with ${partner.outbound_auth?.method ?? 'no auth'}`;
  return targets.map((endpoint) => ({ endpoint: endpoint.endpoint_id, url: endpoint.url, body, note }));
}
