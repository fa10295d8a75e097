/*
 * An operator's view of a partner's operational notifications (docs/notifications.md): its
 * subscription and its 20 latest notifications, and the switch that stops (and starts again)
 * sending them. The switch names its reason and is audited with the operator as the actor.
 */
import type { AuditedWriter, PartnerDirectory } from '@hookstream/partners';
import express, { Router, type Request } from 'express';
import { operatorNotifications } from '../../adapters/store/notification-subscriptions';
import type { DeliveryLogDb } from '../../adapters/store/tables';
import { switchNotifications } from '../../domain/manage-notifications';
import { operatorActor, operatorOf } from './auth/operator-auth';
import { notFound } from './refusals';
import { idParam, parseInput } from './request-input';
import { NoQuery } from './schemas/schemas';
import { NotificationSwitchBody, subscriptionAnswer } from './schemas/notification-schemas';

const body = express.json({ limit: '16kb', type: () => true });
/** Notifications the operator's view lists. */
const RECENT = 20;

export function adminNotificationRoutes(deps: {
  db: DeliveryLogDb;
  partners: PartnerDirectory;
  audit: Pick<AuditedWriter, 'write'>;
}): Router {
  const router = Router();
  const store = operatorNotifications(deps.db);
  const partnerIdOf = (req: Request) => {
    const id = idParam(req.params['partnerId'] as string | undefined);
    if (!id || !deps.partners.get(id)) throw notFound('partner');
    return id;
  };

  router.get('/partners/:partnerId/notifications', async (req, res) => {
    parseInput(NoQuery, req.query, 'query');
    const partnerId = partnerIdOf(req);
    const [subscription, recent] = await Promise.all([store.get(partnerId), store.recent(partnerId, { limit: RECENT })]);
    res.json({ data: { subscription: subscription ? subscriptionAnswer(subscription) : null, recent: recent.items } });
  });

  router.post('/partners/:partnerId/notifications', body, async (req, res) => {
    const partnerId = partnerIdOf(req);
    const input = parseInput(NotificationSwitchBody, req.body, 'body');
    const actor = operatorActor(operatorOf(req.res!.locals));
    const stored = await switchNotifications(store, deps.audit, { partnerId, enabled: input.enabled, actor, reason: input.reason });
    res.json({ data: subscriptionAnswer(stored) });
  });

  return router;
}
