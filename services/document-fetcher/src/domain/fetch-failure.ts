/* Why a document could not be retrieved, and whether trying again later may help. */
import { OutboundFailures } from '@hookstream/runtime';

/**
 * Failure codes, as partner-documents' failure_reason and the failures metric's `reason` label carry
 * them. A request that got no answer is named as every outbound request is (@hookstream/runtime's
 * OutboundFailures, the callback-sender's error classes too).
 */
export const FailureReasons = {
  /** The body is, or says it is, over DOCUMENT_MAX_BYTES. */
  tooLarge: 'TOO_LARGE',
  /** No connection within the connect timeout, or the whole retrieval over the total timeout (a slow-drip body). */
  timeout: OutboundFailures.timeout,
  /** An HTTP answer other than 200 (http_status says which). */
  httpStatus: 'HTTP_STATUS',
  /** The host refused the connection. */
  connectionRefused: OutboundFailures.connectionRefused,
  /** The connection was reset or closed under the request. */
  connectionReset: OutboundFailures.connectionReset,
  /** Anything else that broke on the wire. */
  networkError: OutboundFailures.networkError,
  dnsFailure: OutboundFailures.dnsFailure,
  tlsFailure: OutboundFailures.tlsFailure,
  /** The host is, or resolves to, an address the SSRF guard refuses (a redirect's too). */
  ssrfRefused: OutboundFailures.ssrfRefused,
  /** The URL, or a redirect's Location, is not http or https. */
  unsupportedScheme: 'UNSUPPORTED_SCHEME',
  /** More than DOCUMENT_MAX_REDIRECTS redirects. */
  tooManyRedirects: 'TOO_MANY_REDIRECTS',
  /** Not a URL, or a redirect without a usable Location. */
  invalidUrl: OutboundFailures.invalidUrl,
} as const;

export type FailureReason = (typeof FailureReasons)[keyof typeof FailureReasons];

/** One failed retrieval. */
export interface FetchFailure {
  reason: FailureReason;
  /** True when the same retrieval may succeed later (timeouts, 5xx, 408, 429, connection and network errors). */
  retryable: boolean;
  /** The last HTTP status, when the failure is an HTTP answer. */
  httpStatus: number | null;
  /** What happened, in words (no secrets: URLs are the partner's own). */
  detail: string;
}

/**
 * Whether an HTTP status may change on a later try: 5xx (the host's trouble), 408 (it timed out
 * waiting for us) and 429 (it asks us to slow down). Any other 4xx will not change by waiting.
 */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

const RETRYABLE: ReadonlySet<FailureReason> = new Set([
  FailureReasons.timeout,
  FailureReasons.connectionRefused,
  FailureReasons.connectionReset,
  FailureReasons.networkError,
  FailureReasons.dnsFailure,
  FailureReasons.tlsFailure,
]);

/** A failure that is not an HTTP answer; retryable by its reason. */
export function failureOf(reason: Exclude<FailureReason, 'HTTP_STATUS'>, detail: string): FetchFailure {
  return { reason, retryable: RETRYABLE.has(reason), httpStatus: null, detail };
}

/** An HTTP answer other than 200. */
export function httpFailure(status: number): FetchFailure {
  return { reason: FailureReasons.httpStatus, retryable: isRetryableStatus(status), httpStatus: status, detail: `HTTP ${status}` };
}
