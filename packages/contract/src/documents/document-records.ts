/*
 * The records of inbound documents (docs/documents.md): what the document-fetcher writes on
 * partner-documents, the retrieval it keeps in its retry tiers and dead-letter topic, and the
 * headers those carry. Shared because `hookstream dlq` reads the dead letters too.
 */

/** One document to retrieve (schemas/document-fetch-request.avsc): a retry tier's or document-dlq's record value. */
export interface DocumentFetchRequestValue {
  document_id: string;
  document_index: number;
  partner_id: string;
  request_id: string | null;
  transaction_number: string;
  transaction_type: 'POLICY' | 'CLAIM';
  document_type: string;
  source_url: string;
  filename: string | null;
  received_at: number;
}

/** What became of one document (schemas/partner-document.avsc): a partner-documents record value. */
export interface PartnerDocumentValue {
  partner_id: string;
  request_id: string | null;
  transaction_number: string;
  transaction_type: 'POLICY' | 'CLAIM';
  document_type: string;
  source_url: string;
  filename: string | null;
  outcome: 'STORED' | 'FAILED';
  storage_uri: string | null;
  content_type: string | null;
  size_bytes: number | null;
  sha256: string | null;
  error: string | null;
  fetched_at: number;
  document_id: string;
  document_index: number;
  failure_reason: string | null;
  http_status: number | null;
  attempts: number;
  replay: number;
}

/**
 * Kafka headers of the document records besides the retry headers they share with callbacks
 * (RetryHeaders: attempts, due time, failures, where first read) and the dead-letter ones.
 */
export const DocumentHeaders = {
  /**
   * Only on a retrieval `hookstream dlq replay` re-queued, and on what became of it: how many times
   * its dead letter was replayed. A replay may record the document again (one record per replay).
   */
  replayCount: 'hookstream-replay-count',
} as const;
