import { ErrorCodes, HookstreamError } from '@hookstream/errors';

/** The codes of the callback signing layer (entries of the one ErrorCodes list). */
export const CallbackSigningErrorCodes = {
  SIGNING_CONFIG_INVALID: ErrorCodes.SIGNING_CONFIG_INVALID,
  SIGNATURE_INPUT_INVALID: ErrorCodes.SIGNATURE_INPUT_INVALID,
  TOKEN_FETCH_FAILED: ErrorCodes.TOKEN_FETCH_FAILED,
} as const;

export type CallbackSigningErrorCode = (typeof CallbackSigningErrorCodes)[keyof typeof CallbackSigningErrorCodes];

/** Only TOKEN_FETCH_FAILED may succeed on a later attempt; the others need the partner record or body fixed. */
const RETRYABLE: ReadonlySet<CallbackSigningErrorCode> = new Set([CallbackSigningErrorCodes.TOKEN_FETCH_FAILED]);

/**
 * Thrown when a callback cannot be signed. Messages and details name fields and HTTP statuses,
 * never a secret, a token or a token response.
 */
export class CallbackSigningError extends HookstreamError {
  declare readonly code: CallbackSigningErrorCode;

  constructor(code: CallbackSigningErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(code, message, { ...options, retryable: RETRYABLE.has(code) });
  }
}
