/*
 * The partner API's operational notifications (/api/portal/v1/notifications; docs/notifications.md):
 * its subscription read, set (PUT: one URL and the events wanted) and deleted, and the
 * notifications sent to it, newest first. Reads take a portal link too; writes need the API key
 * (self-service.ts says why).
 */
import type { AuditedWriter, PartnerDirectory } from '@hookstream/partners';
import express, { Router, type Request } from 'express';
import type { CallbackUrlGuard } from '../../domain/manage-own-endpoints';
import { subscribeToNotifications, unsubscribeFromNotifications } from '../../domain/manage-notifications';
import { NOTIFICATION_TYPES } from '../../domain/notification-events';
import { refuseUnlessKeyHolderMay } from '../../domain/self-service';
import { decodeCursor } from '../../adapters/store/queries/page';
import { partnerCallerOf } from './auth/partner-auth';
import type { PartnerHandle } from './partner-handle';
import { notFound } from './refusals';
import { parseInput } from './request-input';
import { NoQuery } from './schemas/schemas';
import {
  NotificationDeleteBody,
  NotificationListQuery,
  NotificationSubscribeBody,
  subscriptionAnswer,
} from './schemas/notification-schemas';

export interface PortalNotificationDeps {
  partners: PartnerDirectory;
  urlGuard: CallbackUrlGuard;
  audit: AuditedWriter;
  /** Subscription changes one partner may make in an hour (as its endpoint changes: DELIVERY_LOG_ENDPOINT_CHANGES_PER_HOUR). */
  endpointChangesPerHour: number;
  notificationSettings: { failingAfterMinutes: number; perHour: number };
}

const body = express.json({ limit: '16kb', type: () => true });

export function portalNotificationRoutes(deps: PortalNotificationDeps, scopeOf: (req: Request) => PartnerHandle): Router {
  const router = Router();
  const partnerOf = (req: Request) => {
    const partner = deps.partners.get(partnerCallerOf(req.res!.locals).partnerId);
    if (!partner) throw notFound('partner');
    return partner;
  };
  const writer = (req: Request) => {
    refuseUnlessKeyHolderMay(partnerCallerOf(req.res!.locals).holds, 'change notifications');
    return partnerOf(req);
  };
  const subscribeDeps = (req: Request) => ({
    store: scopeOf(req).notifications,
    places: scopeOf(req).places,
    limit: { kind: 'notifications' as const, count: deps.endpointChangesPerHour, windowMs: 3_600_000 },
    urlGuard: deps.urlGuard,
    audit: deps.audit,
  });

  router.get('/notifications', async (req, res) => {
    parseInput(NoQuery, req.query, 'query');
    const subscription = await scopeOf(req).notifications.get(partnerOf(req).partner_id);
    const { failingAfterMinutes, perHour } = deps.notificationSettings;
    res.json({
      data: {
        subscription: subscription ? subscriptionAnswer(subscription) : null,
        events: NOTIFICATION_TYPES,
        failing_after_minutes: failingAfterMinutes,
        per_hour: perHour,
      },
    });
  });

  router.put('/notifications', body, async (req, res) => {
    const partner = writer(req);
    const { reason, ...input } = parseInput(NotificationSubscribeBody, req.body ?? {}, 'body');
    const stored = await subscribeToNotifications(subscribeDeps(req), partner, input, reason ?? 'subscribed from the partner API');
    res.json({ data: subscriptionAnswer(stored) });
  });

  router.delete('/notifications', body, async (req, res) => {
    const partner = writer(req);
    const { reason } = parseInput(NotificationDeleteBody, req.body ?? {}, 'body');
    await unsubscribeFromNotifications(subscribeDeps(req), partner, reason ?? 'unsubscribed from the partner API');
    res.status(204).end();
  });

  router.get('/notifications/sent', async (req, res) => {
    const query = parseInput(NotificationListQuery, req.query, 'query');
    const cursor = query.cursor === undefined ? undefined : (decodeCursor(query.cursor) ?? undefined);
    const page = await scopeOf(req).notifications.recent(partnerOf(req).partner_id, { limit: query.limit, cursor });
    res.json({ data: page.items, next_cursor: page.nextCursor });
  });

  return router;
}
