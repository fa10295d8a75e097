/*
 * The operator API's paths in the OpenAPI document (openapi.ts). Every path answers 401 without a
 * valid operator token; every write answers 403 to a viewer.
 */
import { ErrorCodes } from '@hookstream/errors';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AdminDeliveryListQuery,
  AdminRejectedWebhookListQuery,
  AdminWebhookListQuery,
  AuditListQuery,
  AuditRecord,
  DeadLetterListQuery,
  DeadLetterPage,
  OperatorView,
  ReplayAnswer,
  ReplayBody,
} from '../schemas/admin-schemas';
import { badQuery, json, refusal } from './openapi-parts';
import { FailingEndpointsPage, FailingEndpointsQuery } from '../schemas/operator-view-schemas';
import { ADMIN_BASE } from '../paths';
import { DeliveryAnswer, DeliveryPage, one, pageOf } from '../schemas/schemas';
import { RejectedWebhookAnswer, RejectedWebhookPage, WebhookAnswer, WebhookPage } from '../schemas/webhook-schemas';

import { notFound, operation, readRefusals, writeRefusals } from './admin-parts';
import { adminPartnerPaths } from './admin-partner-paths';

export const adminPaths: ZodOpenApiPathsObject = {
  [`${ADMIN_BASE}/deliveries`]: {
    get: operation('Deliveries across partners', {
      operationId: 'adminListDeliveries',
      description: 'policy_number finds the policy numbers starting with it, whatever their case.',
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
      description: 'transaction_number finds the transaction numbers starting with it, whatever their case.',
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
  [`${ADMIN_BASE}/rejected-webhooks/{rejectionId}`]: {
    get: operation('One refused webhook with its request as it arrived (credentials redacted)', {
      operationId: 'adminGetRejectedWebhook',
      requestParams: { path: z.object({ rejectionId: z.string() }) },
      responses: {
        '200': { description: 'The refused webhook', ...json(RejectedWebhookAnswer) },
        ...readRefusals,
        ...notFound('refused webhook'),
      },
    }),
  },
  ...adminPartnerPaths,
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
        '(the default) nothing is written; with dry_run false the replay is written with its audit, at rate_per_second. since and until ' +
        'select by time; letters names dead letters one by one (partition:offset). At most 1,000 ' +
        're-queued per request.',
      requestBody: { required: true, ...json(ReplayBody) },
      responses: {
        '200': { description: 'The decisions', ...json(ReplayAnswer) },
        ...writeRefusals,
        '409': refusal('Refused as a whole: a named id is in no dead letter, or too many would be re-queued', [ErrorCodes.CONFLICT]),
      },
    }),
  },
  [`${ADMIN_BASE}/failing-endpoints`]: {
    get: operation('The endpoints failing across partners, the worst first', {
      operationId: 'adminListFailingEndpoints',
      description:
        'Every partner endpoint with a failed send in the last day, deliveries still dead-lettered, or its partner’s circuit open: ' +
        'success rate over the last hour, the last answer, the circuit and the dead letters waiting; worst first: circuit open, ' +
        'then the lowest success rate over the last hour (none after some), then dead letters waiting, then failed sends in the last hour and day.',
      requestParams: { query: FailingEndpointsQuery },
      responses: { '200': { description: 'A page of failing endpoints', ...json(FailingEndpointsPage) }, ...readRefusals, ...badQuery },
    }),
  },
  [`${ADMIN_BASE}/audit`]: {
    get: operation('The audit trail: every change and replay, who and why', {
      operationId: 'adminListAudit',
      description: 'actor_id finds an actor by its id (ux-test) or by the name the trail shows for it (partner:ux-test).',
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
