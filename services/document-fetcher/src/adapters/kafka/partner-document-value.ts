/* The partner-documents record of a retrieval's final outcome (schemas/partner-document.avsc). */
import type { PartnerDocumentValue } from '@hookstream/contract';
import type { DocumentRequest } from '../../domain/document-request';
import type { FetchFailure } from '../../domain/fetch-failure';
import type { StoredDocument } from '../../domain/document';

export type FinalOutcome = { stored: StoredDocument } | { failure: FetchFailure; afterRetries: boolean };

export function partnerDocumentValue(
  request: DocumentRequest,
  outcome: FinalOutcome,
  at: { attempts: number; replay: number; now: number },
): PartnerDocumentValue {
  const stored = 'stored' in outcome ? outcome.stored : null;
  const failure = 'failure' in outcome ? outcome.failure : null;
  const error =
    failure === null
      ? null
      : `${failure.detail}${'afterRetries' in outcome && outcome.afterRetries ? ` (after ${at.attempts} attempts)` : ''}`;
  return {
    partner_id: request.partner_id,
    request_id: request.request_id,
    transaction_number: request.transaction_number,
    transaction_type: request.transaction_type,
    document_type: request.document_type,
    source_url: request.source_url,
    filename: request.filename,
    outcome: stored ? 'STORED' : 'FAILED',
    storage_uri: stored?.uri ?? null,
    content_type: stored?.contentType ?? null,
    size_bytes: stored?.sizeBytes ?? null,
    sha256: stored?.sha256 ?? null,
    error,
    fetched_at: at.now,
    document_id: request.document_id,
    document_index: request.document_index,
    failure_reason: failure?.reason ?? null,
    http_status: failure?.httpStatus ?? null,
    attempts: at.attempts,
    replay: at.replay,
  };
}
