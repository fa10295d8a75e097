import { HookstreamError } from '@hookstream/errors';

import type { SIGNING_FAILURES } from '../../domain/signing-failures';

/** The codes a signing failure carries (of the one list: only TOKEN_FETCH_FAILED is retryable there). */
export type CallbackSigningErrorCode = (typeof SIGNING_FAILURES)[number];

/**
 * Thrown when a callback cannot be signed. Messages and details name fields and HTTP statuses,
 * never a secret, a token or a token response.
 */
export class CallbackSigningError extends HookstreamError {
  declare readonly code: CallbackSigningErrorCode;

  constructor(code: CallbackSigningErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(code, message, options);
  }
}
