/*
 * The refusals of the delivery log's APIs, in the inbound contract's error body (ErrorBody): the
 * HTTP status, an error_code and a message naming the fields at fault; a 400 for invalid input
 * also lists them in `fields` (path and problem each), so a client places each problem beside its
 * input without reading the message's words. A route throws ApiError; the error handler
 * (api-router.ts) answers it and turns anything else into a 503 (a store away), a 400 (a value the
 * store or an Avro record refused) or a 500 without detail.
 */
import { HookstreamError, type FieldProblem } from '@hookstream/errors';
import { errorBody, type ErrorBody } from '@hookstream/runtime';

export const ApiErrorCodes = {
  /** A query parameter, path parameter or body field is missing or invalid; the message names each. */
  VALIDATION: 'INVALID_PAYLOAD_VALIDATION_ERR',
  /** No credentials, or credentials that are unknown, revoked, expired or of a disabled partner. */
  UNAUTHENTICATED: 'INVALID_API_KEY_ERR',
  /** The credentials are good but may not do this (a viewer writing). */
  FORBIDDEN: 'FORBIDDEN_ERR',
  /** Nothing by that id that the caller may see: another partner's is not found either. */
  NOT_FOUND: 'NOT_FOUND_ERR',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED_ERR',
  /** The request conflicts with what the resource is now (a superseded delivery's resend). */
  CONFLICT: 'CONFLICT_ERR',
  /** Too many writes of this kind for this partner; retry after Retry-After. */
  RATE_LIMITED: 'TOO_MANY_REQUESTS_ERR',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE_ERR',
  INTERNAL: 'INTERNAL_SERVER_ERR',
} as const;

export type ApiErrorCode = (typeof ApiErrorCodes)[keyof typeof ApiErrorCodes];

export class ApiError extends HookstreamError {
  constructor(
    readonly httpStatus: number,
    readonly errorCode: ApiErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
    readonly fields?: readonly FieldProblem[],
  ) {
    super(errorCode, message, { retryable: httpStatus === 503 || httpStatus === 429 });
  }

  body(): ErrorBody<ApiErrorCode> & { fields?: FieldProblem[] } {
    const body = errorBody(this.httpStatus, this.errorCode, this.message);
    return this.fields ? { ...body, fields: [...this.fields] } : body;
  }
}

/** A 400 naming every field at fault, in the message and in `fields`. */
export function invalidInput(where: 'query' | 'body', fields: readonly FieldProblem[]): ApiError {
  const named = fields.map((p) => `${p.field}: ${p.message}`).join('; ');
  return new ApiError(400, ApiErrorCodes.VALIDATION, `invalid ${where}: ${named}`, undefined, fields);
}

export const notFound = (what: string) => new ApiError(404, ApiErrorCodes.NOT_FOUND, `no ${what} with that id`);
