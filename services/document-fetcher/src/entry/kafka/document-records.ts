/*
 * What the document-fetcher does with one record read from partner-events or a retry tier: decode
 * it, have each document retrieved (domain/fetch-document), and write what became of each
 * (adapters/kafka/disposition-writer). The Kafka machinery around it (concurrency, order per key, holding a tier
 * record until due, commits) is @hookstream/kafka's GroupMember (concurrent mode, with tiers).
 */
import { AvroInvalidError, ErrorCodes, describeError, hasErrorCode } from '@hookstream/errors';
import { DocumentHeaders } from '@hookstream/contract';
import { headerCount, originOf, retryHistoryOf, type AvroCodec, type ConsumedRecord, type OutputRecord } from '@hookstream/kafka';
import { inSpan, type Logger } from '@hookstream/runtime';
import { documentRequestsOf, type DocumentRequest, type PartnerEvent } from '../../domain/document-request';
import type { DocumentDisposition } from '../../domain/disposition';
import type { RetrievalHistory } from '../../domain/fetch-document';
import type { DocumentFetcherMetrics } from '../../metrics';
import type { DispositionWriter, DocumentTopics } from '../../adapters/kafka/disposition-writer';

export interface DocumentRecordsOptions {
  codec: AvroCodec;
  logger: Logger;
  metrics: DocumentFetcherMetrics;
  topics: DocumentTopics;
  writer: DispositionWriter;
  /** Retrieves and stores one document (domain/fetch-document, wired in main.ts). */
  fetchDocument: (request: DocumentRequest, history: RetrievalHistory) => Promise<DocumentDisposition>;
  now: () => number;
}

/** A record read from partner-events has no past. */
const FIRST_READ: RetrievalHistory = { attempts: 0, skips: 0, firstFailureAt: null, replay: 0 };

/** A tier record's past: its retries so far, and which replay of its dead letter it is. */
function historyOf(headers: ConsumedRecord['message']['headers']): RetrievalHistory {
  return { ...retryHistoryOf(headers), replay: headerCount(headers, DocumentHeaders.replayCount) ?? 0 };
}

export class DocumentRecords {
  constructor(private readonly options: DocumentRecordsOptions) {}

  /**
   * Handles one record; resolves once each of its documents' records is written, with what goes
   * into the retry tiers or, undecodable, the dead letters (written in the member's next transaction).
   */
  async handle(record: ConsumedRecord): Promise<OutputRecord[]> {
    const { tiers } = this.options.topics;
    const tier = tiers.tierOf(record.topic);
    const requests = await this.decode(record, tier === undefined);
    if (!Array.isArray(requests)) return requests.undecodable;
    const history = tier === undefined ? FIRST_READ : historyOf(record.message.headers);
    const origin = originOf(record, tier !== undefined);
    if (tier !== undefined) {
      this.options.metrics.retryLateness.observe(
        { tier: String(tier) },
        Math.max(0, this.options.now() - tiers.dueAt(record.message)) / 1000,
      );
    }
    // The documents of one webhook side by side: each in its partner's slots (fetch-document).
    const outputs = await Promise.all(
      requests.map(async (request) => {
        const attributes = {
          'hookstream.partner_id': request.partner_id,
          'hookstream.document_id': request.document_id,
          'hookstream.attempt': history.attempts + 1,
          'hookstream.tier': tier ?? 0,
        };
        // Identifiers only: never the document, its URL's query or a credential.
        const disposition = await inSpan('document.fetch', { attributes }, async (span) => {
          const decided = await this.options.fetchDocument(request, history);
          span.setAttribute('hookstream.outcome', decided.kind);
          return decided;
        });
        return this.options.writer.write(disposition, request, history, origin, record);
      }),
    );
    return outputs.flat();
  }

  /** The retrievals a record asks for; when it cannot be decoded, its dead letter (the record as it is). */
  private async decode(record: ConsumedRecord, fresh: boolean): Promise<DocumentRequest[] | { undecodable: OutputRecord[] }> {
    const { topic, partition, message } = record;
    try {
      if (!message.value) throw new AvroInvalidError('the record has no value');
      if (!fresh) return [(await this.options.codec.decode(message.value, topic)) as DocumentRequest];
      return documentRequestsOf((await this.options.codec.decode(message.value, topic)) as PartnerEvent);
    } catch (error) {
      if (!hasErrorCode(error, ErrorCodes.AVRO_INVALID)) throw error; // the registry is down: the record is read again
      this.options.logger.error(
        { topic, partition, offset: message.offset, err: describeError(error) },
        'undecodable record: dead-lettered',
      );
      return { undecodable: this.options.writer.undecodable(record, (error as Error).message) };
    }
  }
}
