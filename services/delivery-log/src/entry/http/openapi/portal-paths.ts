/*
 * The partner API's paths in the OpenAPI document (openapi.ts).
 */
import { ErrorCodes } from '@hookstream/errors';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { badBody, badQuery, json, refusal, unavailable } from './openapi-parts';
import { PORTAL_BASE } from '../paths';
import {
  DeliveryAnswer,
  DeliveryListQuery,
  DeliveryPage,
  KeyRotationBody,
  NoQuery,
  ResendBody,
  Resent,
  RotatedKey,
  one,
} from '../schemas/schemas';
import {
  RejectedWebhookAnswer,
  RejectedWebhookListQuery,
  RejectedWebhookPage,
  WebhookAnswer,
  WebhookListQuery,
  WebhookPage,
} from '../schemas/webhook-schemas';
import { RecoverBody, RecoveryAnswer } from '../schemas/operator-view-schemas';
import { MAX_RECOVERED_PER_REQUEST } from '../../../domain/recover-dead-letters';
import { EventCatalogueAnswer } from '../schemas/event-catalogue-schemas';

/** What the event catalogue is, for both APIs' operations. */
export const EVENT_CATALOGUE_DESCRIPTION =
  'Each policy status the insurer calls back about (POLICY_ISSUING, POLICY_ACTIVE, POLICY_CANCELLED): what it means, which of the ' +
  'partner’s endpoints receive it, and the body of its callback exactly as the partner gets it (its body mapping applied to the ' +
  'contract’s sample policy, policy number EXAMPLE-0001); every header a callback carries, a credential’s value "[redacted]"; ' +
  'and how to verify one. Nothing is sent: POST /endpoints/{endpoint_id}/test sends a real one.';

export const partnerRefusals = {
  '401': refusal(
    'No x-api-key or portal token, or one that is unknown, revoked or expired; a session or portal token of a partner since disabled is told so',
    [ErrorCodes.INVALID_API_KEY, ErrorCodes.PARTNER_DISABLED],
  ),
  '429': refusal('Too many requests from this partner (or, on a write, too many of its kind); retry after Retry-After', [
    ErrorCodes.TOO_MANY_REQUESTS,
  ]),
  ...unavailable,
};
const listRefusals = { ...partnerRefusals, ...badQuery };
/** A write made with the console's session cookie without its x-csrf-token. */
export const csrfRefusal = {
  '403': refusal('Signed in by the console’s cookie, from another origin or without its x-csrf-token', [ErrorCodes.FORBIDDEN]),
};
export const oneRefusals = { ...partnerRefusals, '404': refusal('No such id among the caller’s own', [ErrorCodes.NOT_FOUND]) };

export const operation = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>): ZodOpenApiOperationObject => ({
  summary,
  tags: ['partner'],
  security: [{ partnerApiKey: [] }, { portalToken: [] }],
  ...operation,
});

export const portalPaths: ZodOpenApiPathsObject = {
  [`${PORTAL_BASE}/deliveries`]: {
    get: operation('The partner’s callback deliveries', {
      operationId: 'listDeliveries',
      description: 'policy_number finds the policy numbers starting with it, whatever their case (an exact number finds itself).',
      requestParams: { query: DeliveryListQuery },
      responses: {
        '200': { description: 'A page of deliveries, newest first', ...json(DeliveryPage) },
        ...listRefusals,
      },
    }),
  },
  [`${PORTAL_BASE}/deliveries/{deliveryId}`]: {
    get: operation('One delivery with every attempt and the body as sent', {
      operationId: 'getDelivery',
      requestParams: { path: z.object({ deliveryId: z.string() }) },
      responses: { '200': { description: 'The delivery', ...json(DeliveryAnswer) }, ...oneRefusals },
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
        ...badBody,
        '409': refusal('Nothing to resend: the message says why', [ErrorCodes.CONFLICT]),
        ...csrfRefusal,
      },
    }),
  },
  [`${PORTAL_BASE}/dead-letters/recover`]: {
    post: operation('Resend every dead-lettered delivery since a time (optionally of one endpoint), a dry run unless dry_run is false', {
      operationId: 'recoverDeadLetters',
      description:
        `Looks at the partner's deliveries dead-lettered at or after since and not resent since, oldest first, at most ${MAX_RECOVERED_PER_REQUEST} ` +
        'per request (more says whether others wait). Each is decided as a single resend is: refused when superseded, already resent or ' +
        'resent the most times allowed; the rest are resent while the hourly number of resends allows, each one counting against it. ' +
        'With dry_run (the default) nothing is written and the answer says what would happen now; with dry_run false they are queued ' +
        'again (audited with the partner as the operator) and the answer says what was resent and what was not, and why. An endpoint id ' +
        'that is not one of the partner’s answers 404.',
      requestBody: { required: true, ...json(RecoverBody) },
      responses: {
        '200': { description: 'What was (or would be) resent, and what not and why', ...json(RecoveryAnswer) },
        ...oneRefusals,
        ...badBody,
        '409': refusal('A dead letter to resend could not be read from its topic', [ErrorCodes.CONFLICT]),
        ...csrfRefusal,
      },
    }),
  },
  [`${PORTAL_BASE}/webhooks`]: {
    get: operation('The partner’s inbound webhooks', {
      operationId: 'listWebhooks',
      description: 'transaction_number finds the transaction numbers starting with it, whatever their case.',
      requestParams: { query: WebhookListQuery },
      responses: {
        '200': { description: 'A page of webhooks, newest first', ...json(WebhookPage) },
        ...listRefusals,
      },
    }),
  },
  [`${PORTAL_BASE}/webhooks/{webhookId}`]: {
    get: operation('One webhook with what became of each document', {
      operationId: 'getWebhook',
      requestParams: { path: z.object({ webhookId: z.string() }) },
      responses: { '200': { description: 'The webhook', ...json(WebhookAnswer) }, ...oneRefusals },
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
        '200': { description: 'A page of refused webhooks, newest first', ...json(RejectedWebhookPage) },
        ...listRefusals,
      },
    }),
  },
  [`${PORTAL_BASE}/rejected-webhooks/{rejectionId}`]: {
    get: operation('One refused webhook, opened to its request as it arrived', {
      operationId: 'getRejectedWebhook',
      description:
        'The refusal with each field at fault and its message, the request’s headers as they arrived (credentials "[redacted]") ' +
        'and its body (the first 16 KiB). Another partner’s rejection_id answers 404 as an unknown one does.',
      requestParams: { path: z.object({ rejectionId: z.string() }) },
      responses: { '200': { description: 'The refused webhook', ...json(RejectedWebhookAnswer) }, ...oneRefusals },
    }),
  },
  [`${PORTAL_BASE}/api-keys/rotate`]: {
    post: operation('Rotate the partner’s own inbound API key', {
      operationId: 'rotateApiKey',
      description:
        'Issues a new x-api-key, shown only in this answer; every other key of the partner keeps working until the expires_at ' +
        'given for it (the overlap, 24 hours unless the insurer configured another), so the partner can switch without a gap. Audited. ' +
        'Only with the current API key (x-api-key, or a console session opened with it): a portal token cannot mint a key.',
      requestBody: { required: false, ...json(KeyRotationBody) },
      responses: {
        '201': { description: 'The new key', ...json(one(RotatedKey, 'RotatedKeyAnswer')) },
        ...partnerRefusals,
        '409': refusal('The partner would hold more working keys than allowed: the message says how many', [ErrorCodes.CONFLICT]),
        ...badBody,
        '403': refusal(
          'A portal token (or a console session opened with one); or a console write from another origin or without its x-csrf-token',
          [ErrorCodes.FORBIDDEN],
        ),
      },
    }),
  },
  [`${PORTAL_BASE}/event-types`]: {
    get: operation('What the partner is called back about, with an example of each callback', {
      operationId: 'getEventTypes',
      requestParams: { query: NoQuery },
      description: EVENT_CATALOGUE_DESCRIPTION,
      responses: { '200': { description: 'The event catalogue', ...json(EventCatalogueAnswer) }, ...partnerRefusals, ...badQuery },
    }),
  },
};
