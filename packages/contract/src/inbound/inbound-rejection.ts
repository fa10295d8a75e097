/*
 * A webhook the ingress refused an authenticated partner (400 or 409), as it records it on
 * inbound-rejections for the delivery log: what the partner was told and what could be read of
 * the body. Shared because the ingress writes it and the delivery log reads it.
 */

/** An inbound-rejections record value (schemas/inbound-rejection.avsc). */
export interface InboundRejectionValue {
  rejection_id: string;
  partner_id: string;
  received_at: number;
  http_status: number;
  error_code: string;
  message: string;
  fields: string[];
  request_id: string | null;
  transaction_number: string | null;
  payload_fingerprint: string | null;
  ingress_instance: string | null;
}
