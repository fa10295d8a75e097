/*
 * The operator API's reading side: deliveries, webhooks and refused webhooks across partners (the
 * partner API's routes and filters, plus partner_id: log-routes.ts), a partner's endpoint health,
 * the endpoints failing across partners, the audit trail, and who the caller is.
 */
import { describeOperator } from '@hookstream/partners';
import { Router } from 'express';
import type { DeliveryLogDb } from '../../adapters/store/tables';
import { listAudit } from '../../adapters/store/queries/audit-queries';
import { partnerEndpointHealth } from '../../domain/endpoint-health';
import { AuditListQuery } from './schemas/admin-schemas';
import { logRoutes } from './log-routes';
import { operatorOf } from './auth/operator-auth';
import { idParam, pageFilter, parseInput } from './request-input';
import { endpointHealthStore } from '../../adapters/store/endpoint-health-store';
import { failingEndpoints } from '../../adapters/store/queries/failing-endpoints';
import { FailingEndpointsQuery } from './schemas/operator-view-schemas';

export function adminSearchRoutes(db: DeliveryLogDb, retryDelaysMs: readonly number[]): Router {
  const router = Router();
  // Deliveries, webhooks and refused webhooks of the partner the query names, or of every partner.
  router.use(logRoutes({ partnerOf: (_req, named) => named, acrossPartners: true, retryDelaysMs, read: (_req, query) => query(db) }));

  router.get('/partners/:partnerId/endpoints', async (req, res) => {
    res.json({ data: await partnerEndpointHealth(endpointHealthStore(db), idParam(req.params.partnerId)) });
  });

  router.get('/failing-endpoints', async (req, res) => {
    const query = parseInput(FailingEndpointsQuery, req.query, 'query');
    const page = await failingEndpoints(db, {
      limit: query.limit,
      offset: query.offset,
      ...(query.partner_id ? { partnerId: query.partner_id } : {}),
    });
    const next = query.offset + page.items.length;
    res.json({ data: page.items, total: page.total, next_offset: next < page.total ? next : null });
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
