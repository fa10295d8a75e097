/*
 * What the document-fetcher does with one record read from partner-events or a retry tier: decode
 * it, have each document retrieved (domain/fetch-document), and write what became of each
 * (disposition-writer). The Kafka machinery around it (concurrency, order per key, holding a tier
 * record until due, commits) is shared's ConcurrentConsumer.
 */
import { AvroInvalidError, describeError, type AvroCodec, type ConsumedRecord, type Logger } from '@hookstream/shared';
import { documentRequestsOf, type DocumentRequest, type PartnerEvent } from '../domain/document-request';
import type { DocumentDisposition } from '../domain/disposition';
import type { RetrievalHistory } from '../domain/fetch-document';
import type { DocumentFetcherMetrics } from '../metrics';
import type { DispositionWriter, DocumentTopics } from './disposition-writer';
import { dueAtOf, historyOf, originOf } from './retry-headers';

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

export class DocumentRecords {
  private readonly tierOfTopic = new Map<string, number>();

  constructor(private readonly options: DocumentRecordsOptions) {
    for (let tier = 1; tier <= options.topics.tiers; tier++) this.tierOfTopic.set(options.topics.retry(tier), tier);
  }

  /** The retry tiers' topics, in tier order. */
  get retryTopics(): string[] {
    return [...this.tierOfTopic.keys()];
  }

  /** When a retry tier's record may be attempted (epoch ms). */
  dueAt(message: ConsumedRecord['message']): number {
    return dueAtOf(message.headers);
  }

  /** Handles one record; resolves once what became of each of its documents is durably written. */
  async handle(record: ConsumedRecord): Promise<void> {
    const fresh = !this.tierOfTopic.has(record.topic);
    const requests = await this.decode(record, fresh);
    if (requests === undefined) return;
    const history = fresh ? { attempts: 0, replay: 0 } : historyOf(record.message.headers);
    const origin = originOf(record, fresh);
    const tier = this.tierOfTopic.get(record.topic);
    if (tier !== undefined) {
      this.options.metrics.retryLateness.observe(
        { tier: String(tier) },
        Math.max(0, this.options.now() - this.dueAt(record.message)) / 1000,
      );
    }
    // The documents of one webhook side by side: each in its partner's slots (fetch-document).
    await Promise.all(
      requests.map(async (request) => {
        const disposition = await this.options.fetchDocument(request, history);
        await this.options.writer.write(disposition, request, history, origin, record);
      }),
    );
  }

  /** The retrievals a record asks for; undefined when it cannot be decoded (then it is dead-lettered as it is). */
  private async decode(record: ConsumedRecord, fresh: boolean): Promise<DocumentRequest[] | undefined> {
    const { topic, partition, message } = record;
    try {
      if (!message.value) throw new AvroInvalidError('the record has no value');
      if (!fresh) return [(await this.options.codec.decode(message.value, topic)) as DocumentRequest];
      return documentRequestsOf((await this.options.codec.decode(message.value, topic)) as PartnerEvent);
    } catch (error) {
      if (!(error instanceof AvroInvalidError)) throw error; // the registry is down: the record is read again
      this.options.logger.error(
        { topic, partition, offset: message.offset, err: describeError(error) },
        'undecodable record: dead-lettered',
      );
      await this.options.writer.undecodable(record, error.message);
      return undefined;
    }
  }
}
