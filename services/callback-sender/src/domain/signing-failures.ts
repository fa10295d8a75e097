import { ErrorCodes } from '@hookstream/errors';

/**
 * The codes of a callback that cannot be signed (adapters/signing raises them): recorded as the
 * attempt's failure class without the HOOKSTREAM_ prefix. Only TOKEN_FETCH_FAILED may pass on a
 * later attempt (the one list says so); the others need the partner record or the body fixed.
 */
export const SIGNING_FAILURES = [
  ErrorCodes.SIGNING_CONFIG_INVALID,
  ErrorCodes.SIGNATURE_INPUT_INVALID,
  ErrorCodes.TOKEN_FETCH_FAILED,
] as const;
