/*
 * The retrieval of one document, as one story: already recorded? → a slot of the partner's →
 * retrieve → store → disposition. Its adapters (the record index, the limiter, the download, the
 * store) are passed in; main.ts wires them.
 */
import { nextTierAfterFailure, type RetryHistory } from '@hookstream/kafka';
import { type PartnerLimiter } from '@hookstream/runtime';
import type { SpooledDocument, StoredDocument } from './document';
import type { DocumentDisposition } from './disposition';
import type { DocumentRequest } from './document-request';
import type { FetchFailure } from './fetch-failure';

/** What a record says of the retrieval's past: its retries so far, and which replay of its dead letter it is. */
export interface RetrievalHistory extends RetryHistory {
  replay: number;
}

export interface FetchDocumentDeps {
  /** Whether partner-documents already holds this document's record for this replay (the table of recorded documents; throws when the store is down). */
  isRecorded: (documentId: string, replay: number) => Promise<boolean>;
  /** Each partner's share of the fetcher: a retrieval runs in one of its partner's slots. */
  limiter: Pick<PartnerLimiter, 'run'>;
  /** GETs the URL into the spool (adapters/http/document-download.ts). */
  retrieve: (url: string) => Promise<{ kind: 'retrieved'; document: SpooledDocument } | { kind: 'failed'; failure: FetchFailure }>;
  /** Stores a spooled body under its content address (adapters/storage/). Throws when the store is unavailable. */
  store: (document: SpooledDocument) => Promise<StoredDocument>;
  /** The retry tiers' delays, in ms. */
  retryDelaysMs: readonly number[];
  now: () => number;
}

/**
 * Retrieves and stores one document of a partner's webhook (contract 2.2: "a publicly accessible
 * URL from which the service retrieves the document"):
 * 1. a document already recorded (the same record read again after a crash) is left alone;
 * 2. it is retrieved in one of its partner's slots, so a slow host holds only its own partner's;
 * 3. retrieved → stored → STORED;
 * 4. a failure that cannot pass (4xx but 408/429, SSRF refused, over the cap, not http) → FAILED at once;
 * 5. a failure that may pass → the next retry tier, or after the last → a dead letter and FAILED.
 */
export async function fetchDocument(
  request: DocumentRequest,
  history: RetrievalHistory,
  deps: FetchDocumentDeps,
): Promise<DocumentDisposition> {
  if (await deps.isRecorded(request.document_id, history.replay)) return { kind: 'already-recorded' };
  const attempts = history.attempts + 1;
  const started = performance.now();
  const retrieval = await deps.limiter.run(request.partner_id, () => deps.retrieve(request.source_url));
  if (retrieval.kind === 'retrieved') {
    const document = await deps.store(retrieval.document);
    return { kind: 'stored', attempts, document, latencyMs: performance.now() - started };
  }
  const { failure } = retrieval;
  const latencyMs = performance.now() - started;
  if (!failure.retryable) return { kind: 'failed', attempts, failure, latencyMs };
  const next = nextTierAfterFailure(attempts, deps.retryDelaysMs, deps.now());
  if (next.kind === 'dead-letter') return { kind: 'dead-letter', attempts, failure, latencyMs };
  return { kind: 'retry', attempts, failure, tier: next.tier, dueAt: next.dueAt, latencyMs };
}
