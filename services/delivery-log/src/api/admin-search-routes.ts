/*
 * The operator API's reading side: deliveries and webhooks across partners (the partner API's
 * filters plus partner_id), webhooks the ingress refused, the audit trail, and who the caller is. The same queries as the partner API's, unscoped.
 */
import { describeOperator } from '@hookstream/shared';
import { Router } from 'express';
import type { DeliveryLogDb } from '../store/database';
import { listAudit } from '../queries/audit-queries';
import { endpointHealth } from '../queries/endpoint-health';
import { findDelivery, listDeliveries } from '../queries/delivery-queries';
import { findWebhook, listWebhooks } from '../queries/webhook-queries';
import { listRejectedWebhooks } from '../queries/rejected-webhook-queries';
import { notFound } from './api-errors';
import { AdminDeliveryListQuery, AdminRejectedWebhookListQuery, AdminWebhookListQuery, AuditListQuery } from './admin-schemas';
import { operatorOf } from './operator-auth';
import { pageFilter } from './portal-routes';
import { idParam, parseInput } from './request-input';

export function adminSearchRoutes(db: DeliveryLogDb): Router {
  const router = Router();

  router.get('/deliveries', async (req, res) => {
    const query = parseInput(AdminDeliveryListQuery, req.query, 'query');
    const page = await listDeliveries(db, {
      ...(query.partner_id ? { partnerId: query.partner_id } : {}),
      ...(query.status ? { state: query.status } : {}),
      ...(query.policy_number ? { policyNumber: query.policy_number } : {}),
      ...(query.endpoint_id ? { endpointId: query.endpoint_id } : {}),
      ...pageFilter(query),
    });
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/deliveries/:deliveryId', async (req, res) => {
    const id = idParam(req.params.deliveryId);
    const delivery = id && (await findDelivery(db, id));
    if (!delivery) throw notFound('delivery');
    res.json({ data: delivery });
  });

  router.get('/webhooks', async (req, res) => {
    const query = parseInput(AdminWebhookListQuery, req.query, 'query');
    const page = await listWebhooks(db, {
      ...(query.partner_id ? { partnerId: query.partner_id } : {}),
      ...(query.transaction_number ? { transactionNumber: query.transaction_number } : {}),
      ...(query.request_id ? { requestId: query.request_id } : {}),
      ...pageFilter(query),
    });
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/webhooks/:webhookId', async (req, res) => {
    const id = idParam(req.params.webhookId);
    const webhook = id && (await findWebhook(db, id));
    if (!webhook) throw notFound('webhook');
    res.json({ data: webhook });
  });

  router.get('/rejected-webhooks', async (req, res) => {
    const query = parseInput(AdminRejectedWebhookListQuery, req.query, 'query');
    const page = await listRejectedWebhooks(db, {
      ...(query.partner_id ? { partnerId: query.partner_id } : {}),
      ...(query.request_id ? { requestId: query.request_id } : {}),
      ...pageFilter(query),
    });
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/partners/:partnerId/endpoints', async (req, res) => {
    const id = idParam(req.params.partnerId);
    if (!id || !(await db.selectFrom('partners').select('partner_id').where('partner_id', '=', id).executeTakeFirst())) {
      throw notFound('partner');
    }
    res.json({ data: await endpointHealth(db, id) });
  });

  router.get('/audit', async (req, res) => {
    const query = parseInput(AuditListQuery, req.query, 'query');
    const page = await listAudit(db, {
      ...(query.actor_id ? { actorId: query.actor_id } : {}),
      ...(query.subject_id ? { subjectId: query.subject_id } : {}),
      ...(query.action ? { action: query.action } : {}),
      ...pageFilter(query),
    });
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/me', (_req, res) => {
    res.json({ data: describeOperator(operatorOf(res.locals)) });
  });

  return router;
}
