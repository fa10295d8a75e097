/*
 * The partner API (/api/portal/v1): a partner's own deliveries, each with every attempt, a resend
 * of a dead-lettered one, a retry now of a failing one and test events (retry-routes.ts), the recovery of those dead-lettered since a time, its own inbound webhooks
 * with their documents and those refused, its endpoints (their health; changed by the partner itself)
 * and signing secret (portal-self-service-routes.ts), and the rotation of its own API key (with the
 * key, not with a portal link). The
 * caller's partner id (partner-auth.ts) scopes every query, so another partner's id answers 404
 * exactly as an unknown one does; the reads also run in the caller's partner scope
 * (adapters/store/partner-scope.ts: row security), a second guard should a query forget its filter.
 */
import type { PartnerChanges } from '@hookstream/partners';
import express, { Router, type Request } from 'express';
import type { DeliveryLogDb } from '../../adapters/store/tables';
import { inPartnerScope } from '../../adapters/store/partner-scope';
import { refuseUnlessKeyHolder, rotateOwnKey } from '../../domain/rotate-own-key';
import { newKeyAnswer } from './admin-partner-routes';
import { notFound } from './refusals';
import { logRoutes } from './log-routes';
import { partnerCallerOf } from './auth/partner-auth';
import { idParam, parseInput } from './request-input';
import { KeyRotationBody, ResendBody } from './schemas/schemas';
import type { DeliveryResender } from '../../domain/resend-delivery';
import type { DeadLetterRecovery } from '../../domain/recover-dead-letters';
import { RecoverBody } from './schemas/operator-view-schemas';
import type { ReplayLanes } from '../../adapters/kafka/replay-lanes';
import { selfServiceRoutes, type SelfServiceDeps } from './portal-self-service-routes';
import { portalRetryRoutes, type RetryRoutesDeps } from './retry-routes';

export interface PortalDeps extends SelfServiceDeps, RetryRoutesDeps {
  db: DeliveryLogDb;
  /** The sender's retry tiers' delays (a failing delivery's schedule left). */
  retryDelaysMs: readonly number[];
  resender: DeliveryResender;
  /** A partner's resend of its dead letters since a time (recover-dead-letters.ts). */
  recovery: DeadLetterRecovery;
  lanes: ReplayLanes;
  changes: PartnerChanges;
  /** How long a partner's other keys keep working after it rotates its key itself. */
  keyRotationOverlapHours: number;
}

export function portalRoutes(deps: PortalDeps): Router {
  const { db, resender, recovery, changes, keyRotationOverlapHours, retryDelaysMs } = deps;
  const router = Router();
  const partnerOf = (req: Request) => partnerCallerOf(req.res!.locals).partnerId;
  // Deliveries, webhooks and refused webhooks, the caller's own.
  const read = <T>(req: Request, query: (scoped: DeliveryLogDb) => Promise<T>) => inPartnerScope(db, partnerOf(req), query);
  router.use(logRoutes(db, { partnerOf, acrossPartners: false, read, retryDelaysMs }));
  router.use(portalRetryRoutes(deps));

  router.post('/deliveries/:deliveryId/resend', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    const id = idParam(req.params.deliveryId);
    const body = parseInput(ResendBody, req.body ?? {}, 'body');
    if (!id) throw notFound('delivery');
    const resent = await resender.resend(partnerOf(req), id, body.reason ?? 'resent from the partner API');
    res.status(202).json({ data: resent });
  });

  router.post('/dead-letters/recover', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    const body = parseInput(RecoverBody, req.body ?? {}, 'body');
    const recovered = await recovery.recover(partnerOf(req), {
      since: new Date(body.since),
      until: body.until === undefined ? undefined : new Date(body.until),
      endpointId: body.endpoint_id,
      dryRun: body.dry_run,
      reason: body.reason ?? 'recovered from the partner API',
    });
    res.json({ data: recovered });
  });

  // Its endpoints (with their health) and signing secret.
  router.use(selfServiceRoutes(deps));

  router.post('/api-keys/rotate', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    refuseUnlessKeyHolder(partnerCallerOf(res.locals).holds);
    const body = parseInput(KeyRotationBody, req.body ?? {}, 'body');
    const rotated = await rotateOwnKey(changes, partnerOf(req), body.reason ?? 'rotated from the partner API', keyRotationOverlapHours);
    res.status(201).json({ data: newKeyAnswer(rotated) });
  });

  return router;
}
