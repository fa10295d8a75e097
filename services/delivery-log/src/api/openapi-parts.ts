/*
 * What the paths of both APIs' OpenAPI share: a JSON body or answer, and the refusals, each with
 * the error_code it carries.
 */
import type { z } from 'zod';
import { type ApiErrorCode, ApiErrorCodes } from './api-errors';
import { ErrorBody } from './schemas';

export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

export const refusal = (description: string, codes: ApiErrorCode[]) => ({
  description: `${description} (error_code ${codes.join(', ')})`,
  ...json(ErrorBody),
});

export const unavailable = { '503': refusal('Starting or unavailable; retry after Retry-After', [ApiErrorCodes.UNAVAILABLE]) };
export const badQuery = { '400': refusal('A query parameter is unknown or invalid; the message names each', [ApiErrorCodes.VALIDATION]) };
export const badBody = {
  '400': refusal('The body is not JSON or a field is invalid; the message names each', [ApiErrorCodes.VALIDATION]),
  '413': refusal('The body is too large', [ApiErrorCodes.VALIDATION]),
};
