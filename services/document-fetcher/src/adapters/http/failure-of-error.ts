/* A failed retrieval's error, classed as a FetchFailure: the body's size cap, else @hookstream/runtime's outbound failures. */
import { describeError } from '@hookstream/errors';
import { OutboundFailures, outboundFailureOf } from '@hookstream/runtime';
import { FailureReasons, failureOf, type FetchFailure } from '../../domain/fetch-failure';

/** Thrown by the body's byte counter once it passes the cap. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the body is over the ${maxBytes}-byte cap (DOCUMENT_MAX_BYTES)`);
  }
}

/** `timedOut`: the retrieval's total timeout fired (the abort's own error says only "aborted"). */
export function failureOfError(error: unknown, timedOut: boolean, totalTimeoutMs: number): FetchFailure {
  if (error instanceof BodyTooLargeError) return failureOf(FailureReasons.tooLarge, error.message);
  const reason = outboundFailureOf(error, timedOut);
  // The total timeout, ours or the signal's: the detail says which limit it was (the error says only "aborted").
  if (reason === OutboundFailures.timeout && (timedOut || (error as { name?: string }).name === 'TimeoutError')) {
    return failureOf(reason, `not retrieved within ${totalTimeoutMs} ms`);
  }
  return failureOf(reason, describeError(error).slice(0, 300));
}
