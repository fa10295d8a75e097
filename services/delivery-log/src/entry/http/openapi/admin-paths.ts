/*
 * The operator API's paths in the OpenAPI document (openapi.ts). Every path answers 401 without a
 * valid operator token; every write answers 403 to a viewer.
 */
import { ErrorCodes } from '@hookstream/errors';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AdminDeliveryListQuery,
  AdminRejectedWebhookListQuery,
  AdminWebhookListQuery,
  AuditListQuery,
  AuditRecord,
  DeadLetterListQuery,
  DeadLetterPage,
  NewKey,
  OperatorView,
  PartnerCreateDoc,
  PartnerUpdateDoc,
  PartnerView,
  PortalLink,
  PortalToken,
  PortalTokenBody,
  ReasonBody,
  ReplayAnswer,
  ReplayBody,
  RotateKeyBody,
} from '../schemas/admin-schemas';
import { badBody, badQuery, json, refusal, unavailable } from './openapi-parts';
import { ADMIN_BASE } from '../paths';
import { DeliveryAnswer, DeliveryPage, EndpointsHealthAnswer, one, pageOf } from '../schemas/schemas';
import { RejectedWebhookPage, WebhookAnswer, WebhookPage } from '../schemas/webhook-schemas';

const readRefusals = {
  '401': refusal('No operator token, or one that is unknown or revoked', [ErrorCodes.INVALID_API_KEY]),
  ...unavailable,
};
const writeRefusals = {
  ...readRefusals,
  ...badBody,
  '403': refusal('A viewer’s token: reading only', [ErrorCodes.FORBIDDEN]),
};
const notFound = (what: string) => ({ '404': refusal(`No ${what} with that id`, [ErrorCodes.NOT_FOUND]) });
const partnerPath = { path: z.object({ partnerId: z.string() }) };

const operation = (summary: string, operation: Omit<ZodOpenApiOperationObject, 'summary'>): ZodOpenApiOperationObject => ({
  summary,
  tags: ['operator'],
  security: [{ operatorToken: [] }],
  ...operation,
});

const PartnerAnswer = one(PartnerView, 'PartnerAnswer');
const NewKeyAnswer = one(NewKey, 'NewKeyAnswer');
const partnerAnswer = (description: string) => ({ description, ...json(PartnerAnswer) });

export const adminPaths: ZodOpenApiPathsObject = {
  [`${ADMIN_BASE}/deliveries`]: {
    get: operation('Deliveries across partners', {
      operationId: 'adminListDeliveries',
      requestParams: { query: AdminDeliveryListQuery },
      responses: {
        '200': { description: 'A page of deliveries', ...json(DeliveryPage) },
        ...readRefusals,
        ...badQuery,
      },
    }),
  },
  [`${ADMIN_BASE}/deliveries/{deliveryId}`]: {
    get: operation('One delivery with every attempt', {
      operationId: 'adminGetDelivery',
      requestParams: { path: z.object({ deliveryId: z.string() }) },
      responses: {
        '200': { description: 'The delivery', ...json(DeliveryAnswer) },
        ...readRefusals,
        ...notFound('delivery'),
      },
    }),
  },
  [`${ADMIN_BASE}/webhooks`]: {
    get: operation('Inbound webhooks across partners', {
      operationId: 'adminListWebhooks',
      requestParams: { query: AdminWebhookListQuery },
      responses: {
        '200': { description: 'A page of webhooks', ...json(WebhookPage) },
        ...readRefusals,
        ...badQuery,
      },
    }),
  },
  [`${ADMIN_BASE}/webhooks/{webhookId}`]: {
    get: operation('One webhook with its documents', {
      operationId: 'adminGetWebhook',
      requestParams: { path: z.object({ webhookId: z.string() }) },
      responses: {
        '200': { description: 'The webhook', ...json(WebhookAnswer) },
        ...readRefusals,
        ...notFound('webhook'),
      },
    }),
  },
  [`${ADMIN_BASE}/rejected-webhooks`]: {
    get: operation('Webhooks the ingress refused, across partners', {
      operationId: 'adminListRejectedWebhooks',
      requestParams: { query: AdminRejectedWebhookListQuery },
      responses: { '200': { description: 'A page of refused webhooks', ...json(RejectedWebhookPage) }, ...readRefusals, ...badQuery },
    }),
  },
  [`${ADMIN_BASE}/partners`]: {
    get: operation('Every partner, secrets masked', {
      operationId: 'adminListPartners',
      responses: {
        '200': { description: 'The partners', ...json(z.object({ data: z.array(PartnerView) }).meta({ id: 'PartnerList' })) },
        ...readRefusals,
      },
    }),
    post: operation('Onboard a partner (as `hookstream partners create`)', {
      operationId: 'adminCreatePartner',
      description: 'The spec is validated field by field as the CLI validates it; the first API key is in the answer, shown once.',
      requestBody: { required: true, ...json(PartnerCreateDoc) },
      responses: { '201': { description: 'Created, with its first API key', ...json(NewKeyAnswer) }, ...writeRefusals },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}`]: {
    get: operation('One partner, secrets masked', {
      operationId: 'adminGetPartner',
      requestParams: partnerPath,
      responses: { '200': partnerAnswer('The partner'), ...readRefusals, ...notFound('partner') },
    }),
    patch: operation('Change a partner (as `hookstream partners update`)', {
      operationId: 'adminUpdatePartner',
      requestParams: partnerPath,
      requestBody: { required: true, ...json(PartnerUpdateDoc) },
      responses: {
        '200': partnerAnswer('The partner after the change'),
        ...writeRefusals,
        ...notFound('partner'),
        '409': refusal('Changed since the revision given', [ErrorCodes.CONFLICT]),
      },
    }),
  },
  ...Object.fromEntries(
    (['disable', 'enable'] as const).map((action) => [
      `${ADMIN_BASE}/partners/{partnerId}/${action}`,
      {
        post: operation(action === 'disable' ? 'Refuse every key of the partner and send it no callbacks' : 'Accept the partner again', {
          operationId: action === 'disable' ? 'adminDisablePartner' : 'adminEnablePartner',
          requestParams: partnerPath,
          requestBody: { required: true, ...json(ReasonBody) },
          responses: { '200': partnerAnswer('The partner after the change'), ...writeRefusals, ...notFound('partner') },
        }),
      },
    ]),
  ),
  [`${ADMIN_BASE}/partners/{partnerId}/endpoints`]: {
    get: operation('A partner’s endpoints’ health (as the partner API shows it)', {
      operationId: 'adminGetEndpointsHealth',
      requestParams: partnerPath,
      responses: {
        '200': { description: 'Health of each endpoint', ...json(EndpointsHealthAnswer) },
        ...readRefusals,
        ...notFound('partner'),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/api-keys/rotate`]: {
    post: operation('Issue a new API key; the others expire after the overlap', {
      operationId: 'adminRotateApiKey',
      requestParams: partnerPath,
      requestBody: { required: true, ...json(RotateKeyBody) },
      responses: {
        '201': { description: 'The new key, shown once', ...json(NewKeyAnswer) },
        ...writeRefusals,
        ...notFound('partner'),
        '409': refusal('The partner would hold more working keys than allowed: revoke one, or rotate with overlap_hours 0', [
          ErrorCodes.CONFLICT,
        ]),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/api-keys/{keyId}/revoke`]: {
    post: operation('Stop accepting one API key now', {
      operationId: 'adminRevokeApiKey',
      requestParams: { path: z.object({ partnerId: z.string(), keyId: z.string() }) },
      requestBody: { required: true, ...json(ReasonBody) },
      responses: {
        '200': partnerAnswer('The partner after the change'),
        ...writeRefusals,
        ...notFound('partner or API key'),
        '409': refusal('The key is revoked already', [ErrorCodes.CONFLICT]),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/portal-tokens`]: {
    post: operation('Issue a portal token for the partner’s people', {
      operationId: 'adminIssuePortalToken',
      description: 'A signed token that opens the partner API for this partner only, until it expires (at most 24 hours). Audited.',
      requestParams: partnerPath,
      requestBody: { required: true, ...json(PortalTokenBody) },
      responses: {
        '201': { description: 'The token, shown once', ...json(one(PortalToken, 'PortalTokenAnswer')) },
        ...writeRefusals,
        ...notFound('partner'),
        '409': refusal('The partner has 50 live portal tokens: revoke one first', [ErrorCodes.CONFLICT]),
      },
    }),
    get: operation('The partner’s portal tokens', {
      operationId: 'adminListPortalTokens',
      description: 'Every portal token issued for the partner, live, revoked or expired (until pruned), newest first; never the token.',
      requestParams: partnerPath,
      responses: {
        '200': { description: 'The portal tokens', ...json(z.object({ data: z.array(PortalLink) }).meta({ id: 'PortalLinkList' })) },
        ...readRefusals,
        ...notFound('partner'),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/portal-tokens/{tokenId}/revoke`]: {
    post: operation('Revoke a portal token', {
      operationId: 'adminRevokePortalToken',
      description:
        'The token, and every console session opened with it, opens nothing from the next request on any replica. Audited ' +
        '(portal-token.revoke); revoking one already revoked or expired changes nothing.',
      requestParams: { path: z.object({ partnerId: z.string(), tokenId: z.string() }) },
      requestBody: { required: true, ...json(ReasonBody) },
      responses: {
        '200': { description: 'The token as it is now', ...json(one(PortalLink, 'PortalLinkAnswer')) },
        ...writeRefusals,
        ...notFound('partner or portal token'),
      },
    }),
  },
  [`${ADMIN_BASE}/dead-letters`]: {
    get: operation('Dead letters (as `hookstream dlq list`)', {
      operationId: 'adminListDeadLetters',
      description: 'Reads the dead-letter topic itself, newest first; filters as the CLI’s.',
      requestParams: { query: DeadLetterListQuery },
      responses: { '200': { description: 'The newest selected dead letters', ...json(DeadLetterPage) }, ...readRefusals, ...badQuery },
    }),
  },
  [`${ADMIN_BASE}/dead-letters/replay`]: {
    post: operation('Replay dead letters (as `hookstream dlq replay`), a dry run unless dry_run is false', {
      operationId: 'adminReplayDeadLetters',
      description:
        'Decides for each selected dead letter: replayed, or skipped and why (superseded, already replayed, replay limit). With dry_run ' +
        '(the default) nothing is written; with dry_run false the replay is written with its audit, at rate_per_second. At most 1,000 ' +
        're-queued per request.',
      requestBody: { required: true, ...json(ReplayBody) },
      responses: {
        '200': { description: 'The decisions', ...json(ReplayAnswer) },
        ...writeRefusals,
        '409': refusal('Refused as a whole: a named id is in no dead letter, or too many would be re-queued', [ErrorCodes.CONFLICT]),
      },
    }),
  },
  [`${ADMIN_BASE}/audit`]: {
    get: operation('The audit trail: every change and replay, who and why', {
      operationId: 'adminListAudit',
      requestParams: { query: AuditListQuery },
      responses: {
        '200': { description: 'A page of audit records', ...json(pageOf(AuditRecord, 'AuditPage')) },
        ...readRefusals,
        ...badQuery,
      },
    }),
  },
  [`${ADMIN_BASE}/me`]: {
    get: operation('The operator the token belongs to', {
      operationId: 'adminWhoAmI',
      responses: { '200': { description: 'The operator', ...json(one(OperatorView, 'OperatorAnswer')) }, ...readRefusals },
    }),
  },
};
