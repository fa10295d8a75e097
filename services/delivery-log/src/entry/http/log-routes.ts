/*
 * The delivery log's reading routes, the same for both APIs but for whose rows they read: the
 * partner API's are scoped to the caller's partner (another partner's id answers 404 as an unknown
 * one does), the operator API's to the partner_id its query names, or to none.
 */
import { Router, type Request } from 'express';
import type { z } from 'zod';
import type { DeliveryLogDb } from '../../adapters/store/tables';
import { findDelivery, listDeliveries } from '../../adapters/store/queries/delivery-queries';
import { findRejectedWebhook, listRejectedWebhooks } from '../../adapters/store/queries/rejected-webhook-queries';
import { findWebhook, listWebhooks } from '../../adapters/store/queries/webhook-queries';
import { AdminDeliveryListQuery, AdminRejectedWebhookListQuery, AdminWebhookListQuery } from './schemas/admin-schemas';
import { notFound } from './refusals';
import { retryScheduleOf } from '../../domain/retry-schedule';
import { idParam, pageFilter, parseInput } from './request-input';
import { DeliveryListQuery } from './schemas/schemas';
import { RejectedWebhookListQuery, WebhookListQuery } from './schemas/webhook-schemas';

type Query<S extends z.ZodType> = z.infer<S> & { partner_id?: string | undefined };

export interface LogScope {
  /** The partner whose rows a request may read; undefined: every partner's. */
  partnerOf: (req: Request, named: string | undefined) => string | undefined;
  /** Whether the list queries take partner_id (the operator API's). */
  acrossPartners: boolean;
  /** The sender's retry tiers' delays, in ms (CALLBACK_RETRY_DELAYS_MS): a failing delivery's schedule left. */
  retryDelaysMs: readonly number[];
  /** Runs a request's query: in the caller's partner scope for the partner API (adapters/store/partner-store.ts), on the store as it is for the operator API. */
  read: <T>(req: Request, query: (db: DeliveryLogDb) => Promise<T>) => Promise<T>;
}

export function logRoutes(scope: LogScope): Router {
  const { read } = scope;
  const router = Router();
  const schemas = scope.acrossPartners
    ? { deliveries: AdminDeliveryListQuery, webhooks: AdminWebhookListQuery, rejected: AdminRejectedWebhookListQuery }
    : { deliveries: DeliveryListQuery, webhooks: WebhookListQuery, rejected: RejectedWebhookListQuery };
  const partnerFilter = (req: Request, named: string | undefined) => {
    const partnerId = scope.partnerOf(req, named);
    return partnerId === undefined ? {} : { partnerId };
  };

  router.get('/deliveries', async (req, res) => {
    const query = parseInput(schemas.deliveries, req.query, 'query') as Query<typeof AdminDeliveryListQuery>;
    const filter = {
      ...partnerFilter(req, query.partner_id),
      ...(query.status ? { state: query.status } : {}),
      ...(query.policy_number ? { policyNumber: query.policy_number } : {}),
      ...(query.endpoint_id ? { endpointId: query.endpoint_id } : {}),
      test: query.test === 'true',
      ...pageFilter(query),
    };
    const page = await read(req, (db) => listDeliveries(db, filter));
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/deliveries/:deliveryId', async (req, res) => {
    const id = idParam(req.params.deliveryId);
    const delivery = id && (await read(req, (db) => findDelivery(db, id, scope.partnerOf(req, undefined))));
    if (!delivery) throw notFound('delivery');
    res.json({ data: { ...delivery, retry_schedule: retryScheduleOf(delivery, scope.retryDelaysMs) } });
  });

  router.get('/webhooks', async (req, res) => {
    const query = parseInput(schemas.webhooks, req.query, 'query') as Query<typeof AdminWebhookListQuery>;
    const filter = {
      ...partnerFilter(req, query.partner_id),
      ...(query.transaction_number ? { transactionNumber: query.transaction_number } : {}),
      ...(query.request_id ? { requestId: query.request_id } : {}),
      ...pageFilter(query),
    };
    const page = await read(req, (db) => listWebhooks(db, filter));
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/webhooks/:webhookId', async (req, res) => {
    const id = idParam(req.params.webhookId);
    const webhook = id && (await read(req, (db) => findWebhook(db, id, scope.partnerOf(req, undefined))));
    if (!webhook) throw notFound('webhook');
    res.json({ data: webhook });
  });

  router.get('/rejected-webhooks', async (req, res) => {
    const query = parseInput(schemas.rejected, req.query, 'query') as Query<typeof AdminRejectedWebhookListQuery>;
    const filter = {
      ...partnerFilter(req, query.partner_id),
      ...(query.request_id ? { requestId: query.request_id } : {}),
      ...pageFilter(query),
    };
    const page = await read(req, (db) => listRejectedWebhooks(db, filter));
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  router.get('/rejected-webhooks/:rejectionId', async (req, res) => {
    const id = idParam(req.params.rejectionId);
    const rejected = id && (await read(req, (db) => findRejectedWebhook(db, id, scope.partnerOf(req, undefined))));
    if (!rejected) throw notFound('refused webhook');
    res.json({ data: rejected });
  });

  return router;
}
