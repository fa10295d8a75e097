/*
 * The documents of a partner event (contract 2.2: each documents[] item links one document), one
 * retrieval each, with an identity that the same webhook always gets again.
 */
import { createHash } from 'node:crypto';
import type { DocumentFetchRequestValue } from '@hookstream/shared';

/** A document to retrieve: the value carried through the retry tiers and into document-dlq. */
export type DocumentRequest = DocumentFetchRequestValue;

/** The fields of a partner-events record (schemas/partner-event.avsc) the fetcher reads. */
export interface PartnerEvent {
  partner_id: string;
  request_id: string | null;
  transaction_number: string;
  transaction_type: 'POLICY' | 'CLAIM';
  documents: Array<{ type: string; url: string; filename: string | null }>;
  received_at: number;
  payload_fingerprint: string;
}

/**
 * The identity of documents[index] of a webhook: hex SHA-256 of the partner, transaction number,
 * request_id, payload fingerprint and index. A webhook read twice, or written twice by the ingress
 * (a replayed request_id taken over: docs/inbound.md), has the same fields and so the same ids;
 * two webhooks without a request_id differ by their payload (different documents or status), so
 * their documents are retrieved each. The fingerprint pins the payload: a request_id reused with
 * another payload is refused by the ingress, and would get other ids here.
 */
export function documentIdOf(event: PartnerEvent, index: number): string {
  const identity = [event.partner_id, event.transaction_number, event.request_id, event.payload_fingerprint, index];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

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
