import { DeadLetterIdentityHeaders } from '@hookstream/kafka';
import { CallbackRequestHeaders, type CallbackRequestValue } from '@hookstream/contract';
import { AvroInvalidError } from '@hookstream/errors';
import { type Message } from '@hookstream/kafka';
import { TopicNames } from '@hookstream/kafka';
import { type Partner } from '@hookstream/partners';
import { headerCount, headerText } from '@hookstream/kafka';
import { coordinatesOf, letterAt, undecodable, type DeadLetter, type DlqRecord } from './dead-letter';
import { ReplayHeaders, type DeadLetterTopic, type LetterCodecs, type LetterDetails } from './dead-letter-topic';
import { describeHeaders, failureOf, partnerNote, retryHistory } from './letter-notes';

/**
 * callback-dlq: CallbackRequest values exactly as they were on callback-requests, with the
 * sender's retry headers and Spring's dead-letter headers saying why (docs/outbound.md). A replay
 * re-queues the same value on callback-requests, so the sender delivers it again with the same
 * delivery id and a fresh attempt count.
 */
export class CallbackLetters implements DeadLetterTopic {
  readonly choice = 'callback' as const;
  readonly source = TopicNames.callbackDlq;
  readonly target = TopicNames.callbackRequests;
  readonly schemaTopics = [TopicNames.callbackDlq, TopicNames.callbackRequests];
  readonly ordered = true;

  constructor(private readonly codecs: LetterCodecs) {}

  async decode(record: DlqRecord): Promise<DeadLetter> {
    const h = record.headers;
    const letter: DeadLetter = {
      ...letterAt(this.source, record),
      // What the headers say, for a value that cannot be decoded; the value's own fields win below.
      partnerId: headerText(h, DeadLetterIdentityHeaders.partnerId) ?? null,
      policyVersion: headerCount(h, CallbackRequestHeaders.policyVersion),
      eventId: headerText(h, DeadLetterIdentityHeaders.eventId) ?? null,
      deliveryId: headerText(h, DeadLetterIdentityHeaders.deliveryId) ?? null,
      endpointId: headerText(h, CallbackRequestHeaders.endpointId) ?? null,
      ...failureOf(h),
      replayCount: headerCount(h, CallbackRequestHeaders.replayCount) ?? 0,
    };
    const request = await this.request(record);
    if (typeof request === 'string') {
      return undecodable(letter, request);
    }
    return {
      ...letter,
      partnerId: request.partner_id,
      policyNumber: request.policy_number,
      policyStatus: request.policy_status,
      policyVersion: request.policy_version,
      eventId: request.event_id,
      deliveryId: request.delivery_id,
      endpointId: request.endpoint_id,
      createdAt: request.created_at,
    };
  }

  requeue(letter: DeadLetter, record: DlqRecord, replay: { replayCount: number; replayId: string }): Message {
    return {
      key: record.key,
      // The very bytes the sender dead-lettered: the CallbackRequest as the consumer wrote it.
      value: record.value,
      // A fresh delivery: only what callback-requests records carry (no attempts, no due time), and the replay count.
      headers: {
        [CallbackRequestHeaders.partnerId]: letter.partnerId ?? '',
        [CallbackRequestHeaders.endpointId]: letter.endpointId ?? '',
        [CallbackRequestHeaders.policyVersion]: String(letter.policyVersion),
        [CallbackRequestHeaders.replayCount]: String(replay.replayCount),
        [ReplayHeaders.replayId]: replay.replayId,
        [ReplayHeaders.replayedFrom]: `${this.source} ${coordinatesOf(letter)}`,
      },
    };
  }

  async details(letter: DeadLetter, record: DlqRecord, partner: Partner | undefined): Promise<LetterDetails> {
    const h = record.headers;
    const request = await this.request(record);
    const endpoint = partner?.callback_endpoints.find((e) => e.endpoint_id === letter.endpointId);
    const body =
      typeof request === 'string'
        ? { endpoint: letter.endpointId ?? '?', url: null, body: null, note: `the record cannot be decoded: ${request}` }
        : {
            endpoint: request.endpoint_id,
            url: endpoint?.url ?? null,
            body: request.body,
            note: partnerNote(partner, request, endpoint),
          };
    return {
      headers: describeHeaders(h),
      history: retryHistory(letter, h),
      bodies: [body],
      outcomesOf:
        letter.deliveryId && letter.policyNumber
          ? { field: 'delivery_id', id: letter.deliveryId, policyNumber: letter.policyNumber }
          : null,
    };
  }

  /** The CallbackRequest in the record, or why it cannot be decoded (a registry that is down is thrown). */
  private async request(record: DlqRecord): Promise<CallbackRequestValue | string> {
    try {
      if (!record.value) throw new AvroInvalidError('the record has no value');
      return (await this.codecs.codec.decode(record.value, this.codecs.topicName(this.source))) as CallbackRequestValue;
    } catch (error) {
      if (error instanceof AvroInvalidError) return error.message;
      throw error;
    }
  }
}
