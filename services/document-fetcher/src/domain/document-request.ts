/*
 * The documents of a partner event (contract 2.2: each documents[] item links one document), one
 * retrieval each, with an identity that the same webhook always gets again.
 */
import { documentIdOf, type DocumentFetchRequestValue, type PartnerEventValue } from '@hookstream/contract';

/** A document to retrieve: the value carried through the retry tiers and into document-dlq. */
export type DocumentRequest = DocumentFetchRequestValue;

/** The fields of a partner-events record (schemas/partner-event.avsc) the fetcher reads. */
export type PartnerEvent = Pick<
  PartnerEventValue,
  'partner_id' | 'request_id' | 'transaction_number' | 'transaction_type' | 'documents' | 'received_at' | 'payload_fingerprint'
>;

/** One retrieval per documents[] item, in order. */
export function documentRequestsOf(event: PartnerEvent): DocumentRequest[] {
  return event.documents.map((document, index) => ({
    document_id: documentIdOf(event, index),
    document_index: index,
    partner_id: event.partner_id,
    request_id: event.request_id,
    transaction_number: event.transaction_number,
    transaction_type: event.transaction_type,
    document_type: document.type,
    source_url: document.url,
    filename: document.filename,
    received_at: event.received_at,
  }));
}
