/*
 * What the callback-sender does with one record read from callback-requests or a retry tier:
 * decode it, have the delivery decided (domain/send-callback), and write what became of it
 * (adapters/kafka/disposition-writer).
 * The Kafka machinery around it (concurrency, ordering, holding until due, commits) is @hookstream/kafka's
 * GroupMember (concurrent mode, with tiers).
 */
import { AvroInvalidError, ErrorCodes, describeError, hasErrorCode } from '@hookstream/errors';
import { retryHistoryOf, type AvroCodec, type ConsumedRecord, type OutputRecord, type RetryHistory } from '@hookstream/kafka';
import { inSpan, type Logger, type Span } from '@hookstream/runtime';
import type { CallbackRequest } from '../../domain/deliver-callback';
import type { Disposition } from '../../domain/disposition';
import type { ReadFrom } from '../../domain/send-callback';
import type { CallbackTopics, DispositionWriter } from '../../adapters/kafka/disposition-writer';
import type { CallbackSenderMetrics } from '../../metrics';

export interface CallbackRecordsOptions {
  codec: AvroCodec;
  logger: Logger;
  metrics: CallbackSenderMetrics;
  topics: CallbackTopics;
  /** Decides what becomes of one record (domain/send-callback). */
  sendCallback: (request: CallbackRequest, history: RetryHistory, read: ReadFrom) => Promise<Disposition>;
  /** Writes what became of it (adapters/kafka). */
  writer: DispositionWriter;
  now: () => number;
}

export class CallbackRecords {
  private readonly writer: DispositionWriter;

  constructor(private readonly options: CallbackRecordsOptions) {
    this.writer = options.writer;
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
      if (!hasErrorCode(error, ErrorCodes.AVRO_INVALID)) throw error; // the registry is down: the batch is read again
      this.options.logger.error(
        { topic, partition, offset: message.offset, err: describeError(error) },
        'undecodable callback record: dead-lettered',
      );
      return this.writer.undecodable(record, (error as Error).message);
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
      disposition = await inSpan('callback.attempt', { attributes: attemptAttributes(request, history, tier) }, async (span) => {
        const decided = await this.options.sendCallback(request, history, tier === undefined ? {} : { tier });
        recordOutcome(span, decided);
        return decided;
      });
    } finally {
      metrics.inFlight.dec({ partner });
    }
    return this.writer.write(record, request, history, disposition);
  }
}

/** What a `callback.attempt` span says of the callback: identifiers only, never its body, a secret or a credential header. */
function attemptAttributes(request: CallbackRequest, history: RetryHistory, tier: number | undefined) {
  return {
    'hookstream.partner_id': request.partner_id,
    'hookstream.policy_number': request.policy_number,
    'hookstream.delivery_id': request.delivery_id,
    'hookstream.attempt': history.attempts + 1,
    'hookstream.tier': tier ?? 0,
  };
}

/** The span's outcome: what became of the record, and the partner's HTTP status when it answered. */
function recordOutcome(span: Span, disposition: Disposition): void {
  span.setAttribute('hookstream.outcome', disposition.kind);
  if ('httpStatus' in disposition && disposition.httpStatus !== null)
    span.setAttribute('http.response.status_code', disposition.httpStatus);
}
