/**
 * Codes of the callback signing layer, in the form of the shared `ErrorCodes` list. Recognise
 * these errors by `code` (and `retryable`), not only by `instanceof`.
 */
export const CallbackSigningErrorCodes = {
  /** The partner's outbound auth cannot be used as stored (a secret does not decrypt or is malformed); fix the partner. */
  SIGNING_CONFIG_INVALID: 'HOOKSTREAM_SIGNING_CONFIG_INVALID',
  /** The body cannot be signed as the contract asks (MD5 over a body that is not a JSON object). */
  SIGNATURE_INPUT_INVALID: 'HOOKSTREAM_SIGNATURE_INPUT_INVALID',
  /** BEARER_FETCHED: the partner's token endpoint failed, timed out or answered without a token; may succeed later. */
  TOKEN_FETCH_FAILED: 'HOOKSTREAM_TOKEN_FETCH_FAILED',
} as const;

export type CallbackSigningErrorCode = (typeof CallbackSigningErrorCodes)[keyof typeof CallbackSigningErrorCodes];

/** Only TOKEN_FETCH_FAILED may succeed on a later attempt; the others need the partner record or body fixed. */
const RETRYABLE: ReadonlySet<CallbackSigningErrorCode> = new Set([CallbackSigningErrorCodes.TOKEN_FETCH_FAILED]);

/**
 * Thrown when a callback cannot be signed. Messages and details name fields and HTTP statuses,
 * never a secret, a token or a token response.
 */
export class CallbackSigningError extends Error {
  readonly code: CallbackSigningErrorCode;
  readonly retryable: boolean;
  /** Structured facts for logs (partner id, field, status); never secrets. */
  readonly details: Record<string, unknown>;

  constructor(code: CallbackSigningErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CallbackSigningError';
    this.code = code;
    this.retryable = RETRYABLE.has(code);
    this.details = options.details ?? {};
  }
}
