/*
 * What the operator API's paths in the OpenAPI document share: its refusals (401 without a valid
 * operator token, 403 to a viewer's write), its 404s and its operations' tag and security.
 */
import { ErrorCodes } from '@hookstream/errors';
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { badBody, refusal, unavailable } from './openapi-parts';

export const readRefusals = {
  '401': refusal('No operator token, or one that is unknown or revoked', [ErrorCodes.INVALID_API_KEY]),
  ...unavailable,
};
export const writeRefusals = {
  ...readRefusals,
  ...badBody,
  '403': refusal('A viewer’s token: reading only', [ErrorCodes.FORBIDDEN]),
};
export const notFound = (what: string) => ({ '404': refusal(`No ${what} with that id`, [ErrorCodes.NOT_FOUND]) });
export const partnerPath = { path: z.object({ partnerId: z.string() }) };

export const operation = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>): ZodOpenApiOperationObject => ({
  summary,
  tags: ['operator'],
  security: [{ operatorToken: [] }],
  ...operation,
});
