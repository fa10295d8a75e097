/**
 * The failure to build a partner's callback body from a policy. The policy-status-consumer
 * dead-letters the event with this message (errorClass BODY_BUILD_FAILED): the same event would
 * fail the same way on every try.
 */

/** Code of {@link CallbackBodyError}, for recognising it across package and process boundaries (DLQ headers). */
export const CALLBACK_BODY_INVALID = 'HOOKSTREAM_CALLBACK_BODY_INVALID';

/**
 * Thrown when a policy cannot be turned into a partner's body: a value a rule formats is not an
 * ISO 8601 date-time, JSON text does not parse, a mapping names what the shape lacks. Not
 * retryable: the same event fails the same way, so it is dead-lettered.
 */
export class CallbackBodyError extends Error {
  readonly code = CALLBACK_BODY_INVALID;
  readonly retryable = false;

  constructor(
    /** Path of the offending field in the 2.1 body, e.g. `start_protection_at`. */
    readonly field: string,
    readonly value: unknown,
    reason: string,
  ) {
    const shown = JSON.stringify(value) ?? String(value);
    super(`${field}: ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown} ${reason}`);
    this.name = 'CallbackBodyError';
  }
}
