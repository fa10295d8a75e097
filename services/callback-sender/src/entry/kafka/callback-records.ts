/*
 * What the callback-sender does with one record read from callback-requests or a retry tier:
 * decode it, have the delivery decided (domain), and write what became of it (disposition-writer).
 * The Kafka machinery around it (concurrency, ordering, holding until due, commits) is @hookstream/kafka's
 * GroupMember (concurrent mode, with tiers).
 */
import { AvroInvalidError, describeError } from '@hookstream/errors';
import { retryHistoryOf, type ConsumedRecord, type OutputRecord, type RetryHistory } from '@hookstream/kafka';
import { type Logger } from '@hookstream/runtime';
import type { CallbackRequest } from '../domain/deliver-callback';
import type { Disposition } from '../domain/disposition';
import { DispositionWriter, type DispositionWriterOptions } from './disposition-writer';

export interface CallbackRecordsOptions extends DispositionWriterOptions {
  /** Decides what becomes of one record (domain/send-callback). */
  sendCallback: (request: CallbackRequest, history: RetryHistory) => Promise<Disposition>;
  logger: Logger;
}

export class CallbackRecords {
  private readonly writer: DispositionWriter;

  constructor(private readonly options: CallbackRecordsOptions) {
    this.writer = new DispositionWriter(options);
  }

  /** Handles one record; resolves with what is to be written of what became of it. */
  async handle(record: ConsumedRecord): Promise<OutputRecord[]> {
    const { topic, partition, message } = record;
    const { topics, codec, metrics } = this.options;
    let request: CallbackRequest;
    try {
      if (!message.value) throw new AvroInvalidError('the record has no value');
      request = (await codec.decode(message.value, topics.requests)) as CallbackRequest;
    } catch (error) {
      if (!(error instanceof AvroInvalidError)) throw error; // the registry is down: the batch is read again
      this.options.logger.error(
        { topic, partition, offset: message.offset, err: describeError(error) },
        'undecodable callback record: dead-lettered',
      );
      return this.writer.undecodable(record, error.message);
    }
    const tier = topics.tiers.tierOf(topic);
    if (tier !== undefined) {
      metrics.retryLateness.observe({ tier: String(tier) }, Math.max(0, this.options.now() - topics.tiers.dueAt(message)) / 1000);
    }
    const partner = request.partner_id;
    metrics.inFlight.inc({ partner });
    const history = retryHistoryOf(message.headers);
    let disposition: Disposition;
    try {
      disposition = await this.options.sendCallback(request, history);
    } finally {
      metrics.inFlight.dec({ partner });
    }
    return this.writer.write(record, request, history, disposition);
  }
}
