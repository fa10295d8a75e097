/* A failed retrieval's error, classed as a FetchFailure (undici's errors, the SSRF guard's, the body's size cap). */
import { errors } from 'undici';
import { describeError } from '@hookstream/errors';
import { isSsrfRefused } from '@hookstream/runtime';
import { FailureReasons, failureOf, type FetchFailure } from '../domain/fetch-failure';

/** Thrown by the body's byte counter once it passes the cap. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the body is over the ${maxBytes}-byte cap (DOCUMENT_MAX_BYTES)`);
  }
}

/** `timedOut`: the retrieval's total timeout fired (the abort's own error says only "aborted"). */
export function failureOfError(error: unknown, timedOut: boolean, totalTimeoutMs: number): FetchFailure {
  const e = error as { code?: string; name?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const detail = describeError(error).slice(0, 300);
  if (isSsrfRefused(error)) return failureOf(FailureReasons.ssrfRefused, detail);
  if (error instanceof BodyTooLargeError) return failureOf(FailureReasons.tooLarge, error.message);
  if (timedOut || e.name === 'TimeoutError') return failureOf(FailureReasons.timeout, `not retrieved within ${totalTimeoutMs} ms`);
  if (
    error instanceof errors.ConnectTimeoutError ||
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError
  ) {
    return failureOf(FailureReasons.timeout, detail);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return failureOf(FailureReasons.dnsFailure, detail);
  if (/CERT|SSL|TLS/i.test(code)) return failureOf(FailureReasons.tlsFailure, detail);
  if (error instanceof errors.InvalidArgumentError || code === 'ERR_INVALID_URL') return failureOf(FailureReasons.invalidUrl, detail);
  // Refused, reset, closed early, or anything else on the wire: the host may be back later.
  return failureOf(FailureReasons.connectionFailed, detail);
}
