/*
 * The partner API (/api/portal/v1): a partner's own deliveries, each with every attempt, a resend
 * of a dead-lettered one, its own inbound webhooks with their documents and those refused, its
 * endpoints' health, and the rotation of its own API key. The caller's partner id (partner-auth.ts) scopes every
 * query, so another partner's id answers 404 exactly as an unknown one does.
 */
import type { PartnerChanges } from '@hookstream/shared';
import express, { Router, type Request } from 'express';
import type { DeliveryLogDb } from '../store/database';
import { findDelivery, listDeliveries } from '../queries/delivery-queries';
import { findWebhook, listWebhooks } from '../queries/webhook-queries';
import { endpointHealth } from '../queries/endpoint-health';
import { newKeyAnswer } from './admin-partner-routes';
import { listRejectedWebhooks } from '../queries/rejected-webhook-queries';
import { decodeCursor } from '../queries/page';
import { notFound } from './api-errors';
import { partnerCallerOf } from './partner-auth';
import { idParam, parseInput } from './request-input';
import { DeliveryListQuery, KeyRotationBody, RejectedWebhookListQuery, ResendBody, WebhookListQuery } from './schemas';
import { partnerOperator, type DeliveryResender } from '../resend/resend-delivery';
import type { ReplayLanes } from '../resend/replay-lanes';

export interface PortalDeps {
  db: DeliveryLogDb;
  resender: DeliveryResender;
  lanes: ReplayLanes;
  changes: PartnerChanges;
  /** How long a partner's other keys keep working after it rotates its key itself. */
  keyRotationOverlapHours: number;
}

/** Paging and time range of a list query, as the queries take them. */
export function pageFilter(query: { cursor?: string | undefined; limit: number; from?: string | undefined; to?: string | undefined }) {
  return {
    limit: query.limit,
    ...(query.cursor ? { cursor: decodeCursor(query.cursor)! } : {}),
    ...(query.from ? { from: new Date(query.from) } : {}),
    ...(query.to ? { to: new Date(query.to) } : {}),
  };
}

export function portalRoutes({ db, resender, changes, keyRotationOverlapHours }: PortalDeps): Router {
  const router = Router();
  const partnerOf = (req: Request) => partnerCallerOf(req.res!.locals).partnerId;

  router.get('/deliveries', async (req, res) => {
    const query = parseInput(DeliveryListQuery, req.query, 'query');
    const page = await listDeliveries(db, {
      partnerId: partnerOf(req),
      ...(query.status ? { state: query.status } : {}),
      ...(query.policy_number ? { policyNumber: query.policy_number } : {}),
      ...(query.endpoint_id ? { endpointId: query.endpoint_id } : {}),
      ...pageFilter(query),
    });
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/deliveries/:deliveryId', async (req, res) => {
    const id = idParam(req.params.deliveryId);
    const delivery = id && (await findDelivery(db, id, partnerOf(req)));
    if (!delivery) throw notFound('delivery');
    res.json({ data: delivery });
  });

  router.post('/deliveries/:deliveryId/resend', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    const id = idParam(req.params.deliveryId);
    const body = parseInput(ResendBody, req.body ?? {}, 'body');
    if (!id) throw notFound('delivery');
    const resent = await resender.resend(partnerOf(req), id, body.reason ?? 'resent from the partner API');
    res.status(202).json({ data: resent });
  });

  router.get('/webhooks', async (req, res) => {
    const query = parseInput(WebhookListQuery, req.query, 'query');
    const page = await listWebhooks(db, {
      partnerId: partnerOf(req),
      ...(query.transaction_number ? { transactionNumber: query.transaction_number } : {}),
      ...(query.request_id ? { requestId: query.request_id } : {}),
      ...pageFilter(query),
    });
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/webhooks/:webhookId', async (req, res) => {
    const id = idParam(req.params.webhookId);
    const webhook = id && (await findWebhook(db, id, partnerOf(req)));
    if (!webhook) throw notFound('webhook');
    res.json({ data: webhook });
  });

  router.get('/rejected-webhooks', async (req, res) => {
    const query = parseInput(RejectedWebhookListQuery, req.query, 'query');
    const page = await listRejectedWebhooks(db, {
      partnerId: partnerOf(req),
      ...(query.request_id ? { requestId: query.request_id } : {}),
      ...pageFilter(query),
    });
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/endpoints', async (req, res) => {
    res.json({ data: await endpointHealth(db, partnerOf(req)) });
  });

  router.post('/api-keys/rotate', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    const body = parseInput(KeyRotationBody, req.body ?? {}, 'body');
    const partnerId = partnerOf(req);
    const actor = { type: 'partner' as const, id: partnerId, name: partnerOperator(partnerId) };
    const rotated = await changes.rotateKey(partnerId, actor, body.reason ?? 'rotated from the partner API', {
      overlapMs: keyRotationOverlapHours * 3_600_000,
    });
    res.status(201).json({ data: newKeyAnswer(rotated) });
  });

  return router;
}
