import { DeadLetterIdentityHeaders } from '@hookstream/kafka';
import { DocumentHeaders, type DocumentFetchRequestValue } from '@hookstream/contract';
import { AvroInvalidError } from '@hookstream/errors';
import { type Message } from '@hookstream/kafka';
import { TopicNames, documentRetryTopicName } from '@hookstream/kafka';
import { type Partner } from '@hookstream/partners';
import { RetryHeaders, headerCount, headerText } from '@hookstream/kafka';
import { coordinatesOf, letterAt, undecodable, type DeadLetter, type DlqRecord } from './dead-letter';
import { ReplayHeaders, type DeadLetterTopic, type LetterCodecs, type LetterDetails } from './dead-letter-topic';
import { describeHeaders, failureOf, retryHistory } from './letter-notes';

/**
 * document-dlq: document retrievals that failed every retry tier of the document-fetcher
 * (docs/documents.md), each a DocumentFetchRequest with the retry headers and Spring's dead-letter
 * headers. A replay re-queues the same value on document-retry-1 without a due time (so it is
 * retrieved at once) and with a fresh attempt count, carrying where the webhook was first read (the
 * fetcher records each document through that partition's lane) and the replay count: the fetcher
 * may then record the document again, once per replay.
 */
export class DocumentLetters implements DeadLetterTopic {
  readonly choice = 'documents' as const;
  readonly source = TopicNames.documentDlq;
  readonly target = documentRetryTopicName(1);
  readonly schemaTopics = [TopicNames.documentDlq, documentRetryTopicName(1)];
  readonly ordered = false;

  constructor(private readonly codecs: LetterCodecs) {}

  async decode(record: DlqRecord): Promise<DeadLetter> {
    const h = record.headers;
    const letter: DeadLetter = {
      ...letterAt(this.source, record),
      partnerId: headerText(h, DeadLetterIdentityHeaders.partnerId) ?? null,
      // A document's identity is its document id (the record key): what the audit and the replay limit count by.
      deliveryId: record.key?.toString('utf8') ?? null,
      policyNumber: null,
      ...failureOf(h),
      replayCount: headerCount(h, DocumentHeaders.replayCount) ?? 0,
    };
    const request = await this.request(record);
    if (typeof request === 'string') return undecodable(letter, request);
    return {
      ...letter,
      partnerId: request.partner_id,
      deliveryId: request.document_id,
      // The view's policy fields hold the webhook's: its transaction number, and its request_id as the event.
      policyNumber: request.transaction_number,
      eventId: request.request_id,
      endpointId: request.document_type,
      createdAt: request.received_at,
    };
  }

  requeue(letter: DeadLetter, record: DlqRecord, replay: { replayCount: number; replayId: string }): Message {
    const carried = (name: string) => headerText(record.headers, name);
    const origin = [RetryHeaders.originalTopic, RetryHeaders.originalPartition, RetryHeaders.originalOffset];
    return {
      key: record.key,
      // The very bytes the fetcher dead-lettered: the DocumentFetchRequest.
      value: record.value,
      headers: {
        ...Object.fromEntries(origin.flatMap((name) => (carried(name) === undefined ? [] : [[name, carried(name)!]]))),
        [DocumentHeaders.replayCount]: String(replay.replayCount),
        [ReplayHeaders.replayId]: replay.replayId,
        [ReplayHeaders.replayedFrom]: `${this.source} ${coordinatesOf(letter)}`,
      },
    };
  }

  async details(letter: DeadLetter, record: DlqRecord, partner: Partner | undefined): Promise<LetterDetails> {
    const h = record.headers;
    const request = await this.request(record);
    const partnerNote = partner ? '' : ` (partner "${letter.partnerId ?? '?'}" is not in partner-config)`;
    return {
      headers: describeHeaders(h),
      history: retryHistory(letter, h),
      bodies:
        typeof request === 'string'
          ? [{ endpoint: '-', url: null, body: null, note: `the record cannot be decoded: ${request}` }]
          : [
              {
                endpoint: request.document_type,
                url: request.source_url,
                body: null,
                note: `a replay retrieves it again from this URL, through the SSRF guard, and records it on partner-documents${partnerNote}`,
              },
            ],
      outcomesOf: null,
    };
  }

  /** The DocumentFetchRequest in the record, or why it cannot be decoded (a registry that is down is thrown). */
  private async request(record: DlqRecord): Promise<DocumentFetchRequestValue | string> {
    try {
      if (!record.value) throw new AvroInvalidError('the record has no value');
      return (await this.codecs.codec.decode(record.value, this.codecs.topicName(this.source))) as DocumentFetchRequestValue;
    } catch (error) {
      if (error instanceof AvroInvalidError) return error.message;
      throw error;
    }
  }
}
