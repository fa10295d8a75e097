/*
 * A webhook the ingress refused an authenticated partner (400 or 409), as it records it on
 * inbound-rejections for the delivery log: what the partner was told and what could be read of
 * the body, and the request as it arrived (bounded, credentials redacted). Shared because the ingress writes it and the delivery log reads it.
 */

/**
 * The one rule for what is hidden of a refused webhook's headers: a header whose name contains one of
 * these, in any case, has its value recorded as "[redacted]" (x-api-key, Authorization, Cookie,
 * X-Hub-Signature-256, a gateway's Ocp-Apim-Subscription-Key…); every other header is kept as sent,
 * so that x-request-source or a trace header reads as the partner sent it. The ingress applies it; the
 * API and the console say it from here.
 */
export const CREDENTIAL_HEADER_PARTS = [
  'auth',
  'key',
  'secret',
  'token',
  'sig',
  'pass',
  'cookie',
  'session',
  'credential',
  'jwt',
  'bearer',
] as const;

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
  /*
   * The request as it arrived. Optional here because a writer may leave them out: Avro writes
   * their defaults (empty, null, false), which is also what records written before them read as.
   */
  /** Each field the answer named, with its message. */
  problems?: { field: string; message: string }[];
  /** The headers as received, credentials "[redacted]". */
  request_headers?: { name: string; value: string }[];
  headers_truncated?: boolean;
  /** The body's first 16 KiB as UTF-8 text; null when none was read. */
  body?: string | null;
  body_size?: number | null;
  body_truncated?: boolean;
}
