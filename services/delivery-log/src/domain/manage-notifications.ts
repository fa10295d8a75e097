/*
 * A partner subscribes its one notification URL (docs/notifications.md), reads it and its recent
 * notifications, and unsubscribes; an operator switches a partner's notifications off and on.
 *
 * A subscription is a self-service change (self-service.ts): API key only, within the partner's
 * hourly limit, refused while self-service is off, audited with the partner as the actor. Its URL
 * is judged as a callback endpoint's is (manage-own-endpoints.ts: the SSRF guard, with the
 * deployment's SSRF_ALLOW), and must be https: plain http only to a loopback address, which the
 * guard refuses unless SSRF_ALLOW lets the deployment reach it (a development stack's receivers).
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import { PartnerSpecError, type Actor, type AuditedWriter, type Partner } from '@hookstream/partners';
import type { CallbackUrlGuard } from './manage-own-endpoints';
import type { NotificationSubscription } from './evaluate-notifications';
import { NOTIFICATION_SIGNING_METHODS, NOTIFICATION_TYPES, type NotificationState, type NotificationType } from './notification-events';
import { partnerActor, withinLimit, type SelfServiceLimit, type SelfServicePlaces } from './self-service';

/** A notification as the partner and the operator see it in a list. */
export interface NotificationRecord {
  notification_id: string;
  type: NotificationType;
  occurred_at: Date;
  state: NotificationState;
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  settled_at: Date | null;
  /** The body as sent. */
  body: unknown;
}

/** A partner's subscription as the store keeps it. */
export type StoredSubscription = NotificationSubscription & { createdAt: Date; updatedAt: Date };

/** The partner's subscription in its own scope (adapters/store/notification-subscriptions.ts). */
export interface SubscriptionStore {
  get(partnerId: string): Promise<StoredSubscription | undefined>;
  put(partnerId: string, subscription: { url: string; events: NotificationType[] }, now: Date): Promise<StoredSubscription>;
  remove(partnerId: string): Promise<boolean>;
}

export interface SubscribeDeps {
  store: SubscriptionStore;
  places: SelfServicePlaces;
  limit: SelfServiceLimit;
  urlGuard: CallbackUrlGuard;
  audit: Pick<AuditedWriter, 'write'>;
}

export async function subscribeToNotifications(
  deps: SubscribeDeps,
  partner: Partner,
  input: { url: string; events?: NotificationType[] | undefined },
  reason: string,
): Promise<StoredSubscription> {
  refuseWithoutSelfServiceOrSecret(partner);
  const url = input.url.trim();
  const events = input.events ?? [...NOTIFICATION_TYPES];
  return withinLimit(deps.places, partner.partner_id, deps.limit, async (spend) => {
    const problem = schemeProblem(url) ?? (await deps.urlGuard(url));
    if (problem) {
      // A refused URL keeps its place (self-service.ts: probing what resolves where costs the prober).
      spend();
      throw new PartnerSpecError([{ field: 'url', message: problem }]);
    }
    const stored = await deps.store.put(partner.partner_id, { url, events }, new Date());
    const target = new URL(url);
    await deps.audit.write([], partnerActor(partner.partner_id), {
      action: 'partner.notifications-subscribe',
      subject: { type: 'partner', id: partner.partner_id },
      reason,
      // The URL as its origin and path: a query string may carry a token of the partner's.
      detail: { url: `${target.origin}${target.pathname}`, events },
    });
    return stored;
  });
}

export async function unsubscribeFromNotifications(deps: SubscribeDeps, partner: Partner, reason: string): Promise<void> {
  if (partner.self_service === false) throw selfServiceOff();
  // A change as a subscribe is (docs/security.md): counted under the same hourly limit; a 404 gives its place back.
  await withinLimit(deps.places, partner.partner_id, deps.limit, async () => {
    const removed = await deps.store.remove(partner.partner_id);
    if (!removed) throw new Refusal(ErrorCodes.NOT_FOUND, 'no notification subscription to delete');
    await deps.audit.write([], partnerActor(partner.partner_id), {
      action: 'partner.notifications-unsubscribe',
      subject: { type: 'partner', id: partner.partner_id },
      reason,
    });
  });
}

/** An operator's switch (adapters/store/notification-subscriptions.ts): off also settles what was still to send, unsent. */
export interface OperatorSwitchStore {
  setOperatorOff(partnerId: string, off: boolean, now: Date): Promise<StoredSubscription | undefined>;
}

export async function switchNotifications(
  store: OperatorSwitchStore,
  audit: Pick<AuditedWriter, 'write'>,
  change: { partnerId: string; enabled: boolean; actor: Actor; reason: string },
): Promise<StoredSubscription> {
  const stored = await store.setOperatorOff(change.partnerId, !change.enabled, new Date());
  if (!stored) throw new Refusal(ErrorCodes.NOT_FOUND, 'this partner has no notification subscription');
  await audit.write([], change.actor, {
    action: change.enabled ? 'partner.notifications-on' : 'partner.notifications-off',
    subject: { type: 'partner', id: change.partnerId },
    reason: change.reason,
  });
  return stored;
}

function refuseWithoutSelfServiceOrSecret(partner: Partner): void {
  if (partner.self_service === false) throw selfServiceOff();
  const method = partner.outbound_auth?.method ?? 'none';
  if (!NOTIFICATION_SIGNING_METHODS.includes(method)) {
    throw new Refusal(
      ErrorCodes.CONFLICT,
      `notifications are signed with your signing secret (Standard Webhooks or HMAC_SHA256); your callbacks are signed with ${method}: ask an operator`,
    );
  }
}

function selfServiceOff(): Refusal {
  return new Refusal(ErrorCodes.FORBIDDEN, 'the insurer turned self-service off for this partner: ask an operator to change notifications');
}

/** Why the URL's scheme is refused: https, or http to a loopback address only. */
function schemeProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return 'must be an absolute https URL';
  const target = new URL(url);
  if (target.username || target.password) return 'must not carry credentials';
  if (target.protocol === 'https:') return undefined;
  const loopback = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(target.hostname);
  return target.protocol === 'http:' && loopback ? undefined : 'must be an https URL';
}
