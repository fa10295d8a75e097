/*
 * What the paths of both APIs' OpenAPI share: a JSON body or answer, and the refusals, each with
 * the error_code it carries.
 */
import { ErrorCodes, type RefusalCode } from '@hookstream/errors';
import type { z } from 'zod';
import { ErrorBody } from '../schemas/schemas';

export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

export const refusal = (description: string, codes: RefusalCode[]) => ({
  description: `${description} (error_code ${codes.join(', ')})`,
  ...json(ErrorBody),
});

export const unavailable = { '503': refusal('Starting or unavailable; retry after Retry-After', [ErrorCodes.SERVICE_UNAVAILABLE]) };
export const badQuery = { '400': refusal('A query parameter is unknown or invalid; the message names each', [ErrorCodes.INVALID_PAYLOAD]) };
export const badBody = {
  '400': refusal('The body is not JSON or a field is invalid; the message names each', [ErrorCodes.INVALID_PAYLOAD]),
  '413': refusal('The body is too large', [ErrorCodes.INVALID_PAYLOAD]),
};
