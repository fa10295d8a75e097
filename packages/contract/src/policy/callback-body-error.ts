import { ErrorCodes, HookstreamError } from '@hookstream/errors';

/**
 * The failure to build a partner's callback body from a policy. The policy-status-consumer
 * dead-letters the event with this message (errorClass BODY_BUILD_FAILED): the same event would
 * fail the same way on every try.
 */

/**
 * Thrown when a policy cannot be turned into a partner's body: a value a rule formats is not an
 * ISO 8601 date-time, JSON text does not parse, a mapping names what the shape lacks. Not
 * retryable: the same event fails the same way, so it is dead-lettered.
 */
export class CallbackBodyError extends HookstreamError {
  declare readonly code: typeof ErrorCodes.CALLBACK_BODY_INVALID;

  constructor(
    /** Path of the offending field in the 2.1 body, e.g. `start_protection_at`. */
    readonly field: string,
    readonly value: unknown,
    reason: string,
  ) {
    const shown = JSON.stringify(value) ?? String(value);
    // The value stays out of `details`: it may be a policyholder's data, and details are for logs.
    super(ErrorCodes.CALLBACK_BODY_INVALID, `${field}: ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown} ${reason}`, {
      retryable: false,
      details: { field },
    });
  }
}
