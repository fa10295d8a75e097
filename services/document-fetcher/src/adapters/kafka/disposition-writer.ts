/*
 * Writes what became of one retrieval: its partner-documents record (and dead letter) once,
 * through the DocumentRecorder's transactions; or says what goes into its next retry tier (the
 * GroupMember writes it in the member's next transaction). Counts each in the metrics. What every
 * tiered service writes alike (undecodable records, dead-letter headers) is @hookstream/kafka's TieredDispositionWriter.
 */
import {
  DeadLetterIdentityHeaders,
  TieredDispositionWriter,
  retryHeaders,
  type OutputRecord,
  type ConsumedRecord,
  type TieredDispositionWriterOptions,
  type IHeaders,
  type Origin,
  type RetryTiers,
} from '@hookstream/kafka';
import { DocumentHeaders } from '@hookstream/contract';
import type { DocumentDisposition } from '../../domain/disposition';
import type { DocumentRequest } from '../../domain/document-request';
import type { RetrievalHistory } from '../../domain/fetch-document';
import type { DocumentFetcherMetrics } from '../../metrics';
import type { DocumentRecorder } from './document-recorder';
import { partnerDocumentValue, type FinalOutcome } from './partner-document-value';

/** Real topic names. */
export interface DocumentTopics {
  partnerEvents: string;
  documents: string;
  deadLetters: string;
  tiers: RetryTiers;
}

export interface DispositionWriterOptions extends TieredDispositionWriterOptions<DocumentFetcherMetrics, DocumentTopics> {
  recorder: DocumentRecorder;
}

/** Which replay of its dead letter a retrieval is: on its tier records, its record and its dead letter (absent before any). */
function replayHeader(history: RetrievalHistory): IHeaders {
  return history.replay > 0 ? { [DocumentHeaders.replayCount]: String(history.replay) } : {};
}

export class DispositionWriter extends TieredDispositionWriter<DocumentFetcherMetrics, DocumentTopics> {
  constructor(protected override readonly options: DispositionWriterOptions) {
    super(options, {
      count: () => options.metrics.failures.inc({ partner: 'unknown', reason: 'DECODE_ERROR', outcome: 'dead_lettered' }),
      // Its dead letter names where it was read (a tier, for a tier record), as the fetcher's always have; hookstream dlq shows it as undecodable.
      origin: 'read',
    });
  }

  /** Resolves once its record is written (the recorder), or with what goes into its next retry tier. */
  async write(
    d: DocumentDisposition,
    request: DocumentRequest,
    history: RetrievalHistory,
    origin: Origin,
    record: ConsumedRecord,
  ): Promise<OutputRecord[]> {
    const { metrics, logger } = this.options;
    const partner = request.partner_id;
    const log = { partnerId: partner, documentId: request.document_id, url: request.source_url };
    switch (d.kind) {
      case 'already-recorded':
        metrics.alreadyRecorded.inc();
        return [];
      case 'stored':
        metrics.fetchSeconds.observe({ partner, outcome: 'stored' }, d.latencyMs / 1000);
        if (await this.final(request, history, origin, { stored: d.document }, d.attempts)) {
          metrics.fetched.inc({ partner });
          metrics.bytes.inc({ partner }, d.document.sizeBytes);
        }
        return [];
      case 'failed':
        metrics.fetchSeconds.observe({ partner, outcome: 'failed' }, d.latencyMs / 1000);
        logger.info({ ...log, reason: d.failure.reason, detail: d.failure.detail }, 'document not retrieved; it cannot pass: recorded');
        if (await this.final(request, history, origin, { failure: d.failure, afterRetries: false }, d.attempts)) {
          metrics.failures.inc({ partner, reason: d.failure.reason, outcome: 'failed' });
        }
        return [];
      case 'dead-letter': {
        metrics.fetchSeconds.observe({ partner, outcome: 'failed' }, d.latencyMs / 1000);
        logger.warn({ ...log, reason: d.failure.reason, attempts: d.attempts }, 'document not retrieved after every retry: dead-lettered');
        const outcome = { failure: d.failure, afterRetries: true };
        if (await this.final(request, history, origin, outcome, d.attempts, record)) {
          metrics.failures.inc({ partner, reason: d.failure.reason, outcome: 'dead_lettered' });
        }
        return [];
      }
      case 'retry': {
        metrics.fetchSeconds.observe({ partner, outcome: 'failed' }, d.latencyMs / 1000);
        logger.info({ ...log, reason: d.failure.reason, attempt: d.attempts, tier: d.tier }, 'document not retrieved; retrying later');
        const now = this.options.now();
        const past = { origin, attempts: d.attempts, firstFailureAt: history.firstFailureAt, now };
        const headers = {
          ...retryHeaders({ ...past, dueAt: d.dueAt, lastError: d.failure.detail, attempt: attemptOf(d.failure) }),
          ...replayHeader(history),
        };
        const topic = this.options.topics.tiers.topicOf(d.tier);
        const value = await this.options.codec.encode(topic, request);
        metrics.failures.inc({ partner, reason: d.failure.reason, outcome: 'retried' });
        return [{ topic, message: { key: request.document_id, value, headers } }];
      }
    }
  }

  /** The record (and after retries the dead letter), once: false when it was already recorded. */
  private async final(
    request: DocumentRequest,
    history: RetrievalHistory,
    origin: Origin,
    outcome: FinalOutcome,
    attempts: number,
    deadLettered?: ConsumedRecord,
  ): Promise<boolean> {
    const { codec, topics, recorder, now } = this.options;
    const value = partnerDocumentValue(request, outcome, { attempts, replay: history.replay, now: now() });
    const messages = [
      {
        topic: topics.documents,
        message: { key: request.document_id, value: await codec.encode(topics.documents, value), headers: replayHeader(history) },
      },
    ];
    if (deadLettered && 'failure' in outcome) {
      const past = { origin, attempts, firstFailureAt: history.firstFailureAt, now: value.fetched_at };
      const why = { errorClass: outcome.failure.reason, reason: value.error ?? outcome.failure.detail };
      const headers: IHeaders = {
        ...retryHeaders({ ...past, lastError: outcome.failure.detail, attempt: attemptOf(outcome.failure) }),
        ...replayHeader(history),
        [DeadLetterIdentityHeaders.partnerId]: request.partner_id,
        ...this.deadLetterHeaders(origin, deadLettered, why),
      };
      const dlqValue = await codec.encode(topics.deadLetters, request);
      messages.push({ topic: topics.deadLetters, message: { key: request.document_id, value: dlqValue, headers } });
    }
    const written = await recorder.record(origin.partition, { documentId: request.document_id, replay: history.replay, messages });
    if (!written) this.options.metrics.alreadyRecorded.inc();
    return written;
  }
}

/** What the retrieval just failed with, for the headers `hookstream dlq` reads (the status of the source, the failure reason). */
function attemptOf(failure: { httpStatus: number | null; reason: string }): { httpStatus: number | null; errorClass: string } {
  return { httpStatus: failure.httpStatus, errorClass: failure.reason };
}
