/*
 * The partner API (/api/portal/v1): a partner's own deliveries, each with every attempt, a resend
 * of a dead-lettered one, a retry now of a failing one and test events (retry-routes.ts), the recovery of those dead-lettered since a time, its own inbound webhooks
 * with their documents and those refused, its endpoints (their health; changed by the partner itself)
 * and signing secret (portal-self-service-routes.ts), and the rotation of its own API key (with the
 * key, not with a portal link). The
 * caller's partner id (partner-auth.ts) scopes every query, so another partner's id answers 404
 * exactly as an unknown one does. The routes have no database: each reaches the store only through
 * the caller's handle (forPartner, adapters/store/partner-store.ts), whose reads all run in the
 * caller's partner scope (row security), a second guard should a query forget its filter.
 */
import type { PolicyStatusEventValue } from '@hookstream/contract';
import type { PartnerChanges } from '@hookstream/partners';
import express, { Router, type Request } from 'express';
import type { ForPartner } from './partner-handle';
import { refuseUnlessKeyHolder, rotateOwnKey } from '../../domain/rotate-own-key';
import { newKeyAnswer } from './admin-partner-routes';
import { notFound } from './refusals';
import { logRoutes } from './log-routes';
import { partnerCallerOf } from './auth/partner-auth';
import { idParam, parseInput } from './request-input';
import { KeyRotationBody, NoQuery, ResendBody } from './schemas/schemas';
import { eventCatalogue } from '../../domain/event-catalogue';
import { RecoverBody } from './schemas/operator-view-schemas';
import { selfServiceRoutes, type SelfServiceDeps } from './portal-self-service-routes';
import { portalNotificationRoutes, type PortalNotificationDeps } from './portal-notification-routes';
import { portalRetryRoutes } from './retry-routes';

export interface PortalDeps extends SelfServiceDeps, PortalNotificationDeps {
  forPartner: ForPartner;
  /** The sender's retry tiers' delays (a failing delivery's schedule left). */
  retryDelaysMs: readonly number[];
  changes: PartnerChanges;
  /** How long a partner's other keys keep working after it rotates its key itself. */
  keyRotationOverlapHours: number;
  /** The contract's sample policy: what test events and the event catalogue's examples are built from. */
  samplePolicy: PolicyStatusEventValue['policy'];
}

export function portalRoutes(deps: PortalDeps): Router {
  const { forPartner, changes, keyRotationOverlapHours, retryDelaysMs } = deps;
  const router = Router();
  const partnerOf = (req: Request) => partnerCallerOf(req.res!.locals).partnerId;
  const scopeOf = (req: Request) => forPartner(partnerOf(req));
  // Deliveries, webhooks and refused webhooks, the caller's own.
  router.use(logRoutes({ partnerOf, acrossPartners: false, read: (req, query) => scopeOf(req).read(query), retryDelaysMs }));
  router.use(portalRetryRoutes(scopeOf));

  router.post('/deliveries/:deliveryId/resend', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    const id = idParam(req.params.deliveryId);
    const body = parseInput(ResendBody, req.body ?? {}, 'body');
    if (!id) throw notFound('delivery');
    const scope = scopeOf(req);
    const resent = await scope.resender.resend(scope.partnerId, id, body.reason ?? 'resent from the partner API');
    res.status(202).json({ data: resent });
  });

  router.post('/dead-letters/recover', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    const body = parseInput(RecoverBody, req.body ?? {}, 'body');
    const scope = scopeOf(req);
    const recovered = await scope.recovery.recover(scope.partnerId, {
      since: new Date(body.since),
      until: body.until === undefined ? undefined : new Date(body.until),
      endpointId: body.endpoint_id,
      dryRun: body.dry_run,
      reason: body.reason ?? 'recovered from the partner API',
    });
    res.json({ data: recovered });
  });

  // What it is called back about, with an example of each callback as it gets them.
  router.get('/event-types', (req, res) => {
    parseInput(NoQuery, req.query, 'query');
    const partner = deps.partners.get(partnerOf(req));
    if (!partner) throw notFound('partner');
    res.json({ data: eventCatalogue(partner, deps.samplePolicy) });
  });

  // Its endpoints (with their health) and signing secret.
  router.use(selfServiceRoutes(deps, scopeOf));
  router.use(portalNotificationRoutes(deps, scopeOf));

  router.post('/api-keys/rotate', express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    refuseUnlessKeyHolder(partnerCallerOf(res.locals).holds);
    const body = parseInput(KeyRotationBody, req.body ?? {}, 'body');
    const rotated = await rotateOwnKey(changes, partnerOf(req), body.reason ?? 'rotated from the partner API', keyRotationOverlapHours);
    res.status(201).json({ data: newKeyAnswer(rotated) });
  });

  return router;
}
