/*
 * The identity of an inbound webhook and of each of its documents, computed from what the
 * partner-events record says: the document-fetcher names its retrievals by it, and the delivery
 * log ties a document's outcome to the webhook that linked it.
 */
import { createHash } from 'node:crypto';

/** A partner-events value (schemas/partner-event.avsc). */
export interface PartnerEventValue {
  partner_id: string;
  request_id: string | null;
  transaction_number: string;
  transaction_type: 'POLICY' | 'CLAIM';
  status: string;
  documents: Array<{ type: string; url: string; filename: string | null }>;
  received_at: number;
  payload_fingerprint: string;
  ingress_instance: string | null;
}

/** The fields that identify a webhook: the same webhook read twice, or written twice by the ingress, has the same ones. */
type WebhookIdentity = Pick<PartnerEventValue, 'partner_id' | 'transaction_number' | 'request_id' | 'payload_fingerprint'>;

const sha256Of = (identity: unknown[]) => createHash('sha256').update(JSON.stringify(identity)).digest('hex');

/**
 * The identity of documents[index] of a webhook: hex SHA-256 of the partner, transaction number,
 * request_id, payload fingerprint and index. A webhook read twice, or written twice by the ingress
 * (a replayed request_id taken over: docs/inbound.md), has the same fields and so the same ids;
 * two webhooks without a request_id differ by their payload (different documents or status), so
 * their documents are retrieved each. The fingerprint pins the payload: a request_id reused with
 * another payload is refused by the ingress, and would get other ids here.
 */
export function documentIdOf(event: WebhookIdentity, index: number): string {
  return sha256Of([event.partner_id, event.transaction_number, event.request_id, event.payload_fingerprint, index]);
}

/** The identity of a webhook: as its documents' (documentIdOf), without an index. */
export function webhookIdOf(event: WebhookIdentity): string {
  return sha256Of([event.partner_id, event.transaction_number, event.request_id, event.payload_fingerprint]);
}
