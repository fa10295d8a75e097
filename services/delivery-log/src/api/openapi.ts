/*
 * OpenAPI 3.1 of the partner and operator APIs, made from the same zod schemas the routes validate
 * with (schemas.ts), served at /openapi.json and checked against real answers by the tests.
 */
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import { z } from 'zod';
import { ApiErrorCodes, type ApiErrorCode } from './api-errors';
import { PORTAL_BASE } from './portal-routes';
import {
  DeliveryDetail,
  DeliveryListQuery,
  DeliverySummary,
  ErrorBody,
  RejectedWebhook,
  RejectedWebhookListQuery,
  ResendBody,
  Resent,
  WebhookDetail,
  WebhookListQuery,
  WebhookSummary,
  one,
  pageOf,
} from './schemas';

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
const refusal = (description: string, codes: ApiErrorCode[]) => ({
  description: `${description} (error_code ${codes.join(', ')})`,
  ...json(ErrorBody),
});
const partnerRefusals = {
  '401': refusal('No x-api-key or portal token, or one that is unknown, revoked or expired', [ApiErrorCodes.UNAUTHENTICATED]),
  '503': refusal('Starting or unavailable; retry after Retry-After', [ApiErrorCodes.UNAVAILABLE]),
};
const listRefusals = {
  ...partnerRefusals,
  '400': refusal('A query parameter is unknown or invalid; the message names each', [ApiErrorCodes.VALIDATION]),
};
const oneRefusals = { ...partnerRefusals, '404': refusal('No such id among the caller’s own', [ApiErrorCodes.NOT_FOUND]) };
const partnerSecurity: Array<Record<string, string[]>> = [{ partnerApiKey: [] }, { portalToken: [] }];

const operation = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>): ZodOpenApiOperationObject => ({
  summary,
  security: partnerSecurity,
  ...operation,
});

export function deliveryLogOpenApi(): object {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Hookstream delivery log: partner API',
      version: '1.0.0',
      description:
        'A partner sees its own callbacks (every attempt, the body as sent) and its own inbound webhooks with their documents. ' +
        'Authenticate with the x-api-key used on the webhook, or with a portal token an operator issued (Authorization: Bearer). ' +
        'Another partner’s ids answer 404, as unknown ones do. Lists are newest first; pass next_cursor as cursor for the next page.',
    },
    components: {
      securitySchemes: {
        partnerApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        portalToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A portal token an operator issued for the partner',
        },
      },
    },
    paths: {
      [`${PORTAL_BASE}/deliveries`]: {
        get: operation('The partner’s callback deliveries', {
          operationId: 'listDeliveries',
          requestParams: { query: DeliveryListQuery },
          responses: {
            '200': { description: 'A page of deliveries, newest first', ...json(pageOf(DeliverySummary, 'DeliveryPage')) },
            ...listRefusals,
          },
        }),
      },
      [`${PORTAL_BASE}/deliveries/{deliveryId}`]: {
        get: operation('One delivery with every attempt and the body as sent', {
          operationId: 'getDelivery',
          requestParams: { path: z.object({ deliveryId: z.string() }) },
          responses: { '200': { description: 'The delivery', ...json(one(DeliveryDetail, 'DeliveryAnswer')) }, ...oneRefusals },
        }),
      },
      [`${PORTAL_BASE}/deliveries/{deliveryId}/resend`]: {
        post: operation('Resend a dead-lettered delivery', {
          operationId: 'resendDelivery',
          description:
            'Queues the delivery again with the same delivery_id; it is sent from attempt 1 within seconds. Audited with the partner as the ' +
            'operator. Refused with 409 and the reason when it is not dead-lettered, was superseded by a newer status of the policy, was ' +
            'already resent, or was resent the most times allowed; 429 past the hourly number of resends.',
          requestParams: { path: z.object({ deliveryId: z.string() }) },
          requestBody: { required: false, ...json(ResendBody) },
          responses: {
            '202': { description: 'Queued for delivery', ...json(one(Resent, 'ResendAnswer')) },
            ...oneRefusals,
            '400': refusal('The body is not JSON or a field is invalid', [ApiErrorCodes.VALIDATION]),
            '409': refusal('Nothing to resend: the message says why', [ApiErrorCodes.CONFLICT]),
            '413': refusal('The body is too large', [ApiErrorCodes.VALIDATION]),
            '429': refusal('Too many resends this hour; retry after Retry-After', [ApiErrorCodes.RATE_LIMITED]),
          },
        }),
      },
      [`${PORTAL_BASE}/webhooks`]: {
        get: operation('The partner’s inbound webhooks', {
          operationId: 'listWebhooks',
          requestParams: { query: WebhookListQuery },
          responses: {
            '200': { description: 'A page of webhooks, newest first', ...json(pageOf(WebhookSummary, 'WebhookPage')) },
            ...listRefusals,
          },
        }),
      },
      [`${PORTAL_BASE}/webhooks/{webhookId}`]: {
        get: operation('One webhook with what became of each document', {
          operationId: 'getWebhook',
          requestParams: { path: z.object({ webhookId: z.string() }) },
          responses: { '200': { description: 'The webhook', ...json(one(WebhookDetail, 'WebhookAnswer')) }, ...oneRefusals },
        }),
      },
      [`${PORTAL_BASE}/rejected-webhooks`]: {
        get: operation('The partner’s webhooks the ingress refused (400, 409)', {
          operationId: 'listRejectedWebhooks',
          description:
            'What each refused webhook was answered (status, error_code, the message and the fields it named) and what could be ' +
            'read of its body (request_id, transaction_number). Of a flood of refusals only part is recorded (the first 20, then about ' +
            'one a second); a 401 (an unknown key) is never recorded.',
          requestParams: { query: RejectedWebhookListQuery },
          responses: {
            '200': { description: 'A page of refused webhooks, newest first', ...json(pageOf(RejectedWebhook, 'RejectedWebhookPage')) },
            ...listRefusals,
          },
        }),
      },
    },
  });
}
