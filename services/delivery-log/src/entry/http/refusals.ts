/*
 * The refusals of the delivery log's APIs, in the inbound contract's error body (ErrorBody): the
 * HTTP status, an error_code and a message naming the fields at fault; a 400 for invalid input
 * also lists them in `fields` (path and problem each), so a client places each problem beside its
 * input without reading the message's words. A route throws a Refusal (@hookstream/errors); the
 * error handler (api-router.ts) answers it and turns anything else into a 503 (a store away), a 400
 * (a value the store or an Avro record refused) or a 500 without detail.
 */
import { ErrorCodes, Refusal, type FieldProblem, type RefusalCode } from '@hookstream/errors';
import { errorBody, type ErrorBody } from '@hookstream/runtime';

/** The body a refusal is answered with: the contract's error body, plus `fields` when it names any. */
export function refusalBody(refusal: Refusal): ErrorBody<RefusalCode> & { fields?: FieldProblem[] } {
  const body = errorBody(refusal.httpStatus, refusal.code, refusal.message);
  return refusal.fields.length > 0 ? { ...body, fields: [...refusal.fields] } : body;
}

/** A 400 naming every field at fault, in the message and in `fields`. */
export function invalidInput(where: 'query' | 'body', fields: readonly FieldProblem[]): Refusal {
  const named = fields.map((p) => `${p.field}: ${p.message}`).join('; ');
  return new Refusal(ErrorCodes.INVALID_PAYLOAD, `invalid ${where}: ${named}`, { fields });
}

export const notFound = (what: string) => new Refusal(ErrorCodes.NOT_FOUND, `no ${what} with that id`);
