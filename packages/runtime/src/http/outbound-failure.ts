/*
 * Why an outbound HTTP request (a partner's callback endpoint, token endpoint or document host)
 * got no answer, in the one set of names every service records: the callback-sender's error_class
 * and the document-fetcher's failure_reason alike (docs/outbound.md, docs/documents.md).
 */
import { errors } from 'undici';
import { isSsrfRefused } from './ssrf-guard';

export const OutboundFailures = {
  /** No connection within the connect timeout, no headers or body in time, or the caller's total timeout fired. */
  timeout: 'TIMEOUT',
  /** The host refused the connection (ECONNREFUSED). */
  connectionRefused: 'CONNECTION_REFUSED',
  /** The connection was reset or closed under the request (ECONNRESET, EPIPE, undici's SocketError). */
  connectionReset: 'CONNECTION_RESET',
  /** The host name does not resolve (ENOTFOUND, EAI_AGAIN). */
  dnsFailure: 'DNS_FAILURE',
  /** The TLS handshake or the certificate failed. */
  tlsFailure: 'TLS_FAILURE',
  /** Not a URL undici can request. */
  invalidUrl: 'INVALID_URL',
  /** The host is, or resolves to, an address the SSRF guard refuses: it can never succeed as configured. */
  ssrfRefused: 'SSRF_REFUSED',
  /** Anything else on the wire. */
  networkError: 'NETWORK_ERROR',
} as const;

export type OutboundFailure = (typeof OutboundFailures)[keyof typeof OutboundFailures];

/**
 * The failure `error` (thrown by undici's request or its body) stands for. `timedOut`: the caller's
 * own timeout signal fired (the abort's error says only "aborted").
 */
export function outboundFailureOf(error: unknown, timedOut: boolean): OutboundFailure {
  const e = error as { code?: string; name?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (isSsrfRefused(error)) return OutboundFailures.ssrfRefused;
  if (
    timedOut ||
    e.name === 'TimeoutError' ||
    error instanceof errors.ConnectTimeoutError ||
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError
  ) {
    return OutboundFailures.timeout;
  }
  if (code === 'ECONNREFUSED') return OutboundFailures.connectionRefused;
  if (code === 'ECONNRESET' || code === 'EPIPE' || error instanceof errors.SocketError) return OutboundFailures.connectionReset;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return OutboundFailures.dnsFailure;
  if (/CERT|SSL|TLS/i.test(code)) return OutboundFailures.tlsFailure;
  if (error instanceof errors.InvalidArgumentError || code === 'ERR_INVALID_URL') return OutboundFailures.invalidUrl;
  return OutboundFailures.networkError;
}
