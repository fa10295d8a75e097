/*
 * Operational notifications (docs/notifications.md): what a partner hears about its own
 * integration, once per transition of one of its subjects, at the one URL it subscribed.
 *
 * A subject is an endpoint (`endpoint:<id>`: ok or failing), the partner's dead letters
 * (`dead_letters`: none or waiting) or the partner itself (`partner`: ACTIVE or DISABLED). Each
 * starts calm (ok, none, ACTIVE): a subject never judged is taken to be calm, so that the first
 * judgement of a calm subject notifies nothing.
 */

export const NOTIFICATION_TYPES = [
  'endpoint.failing',
  'endpoint.recovered',
  'dead_letters.waiting',
  'partner.disabled',
  'partner.enabled',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The outbound auth methods a notification can be signed with: those with a signing secret. */
export const NOTIFICATION_SIGNING_METHODS: readonly string[] = ['STANDARD_WEBHOOKS', 'HMAC_SHA256'];

/** Where a notification is in its life: to send, answered 200, out of attempts, or never sent (operator off, or past the hourly bound). */
export type NotificationState = 'pending' | 'delivered' | 'given_up' | 'suppressed';

/** One subject's state as the evaluator judged it now, with what a notification of it would say. */
export interface Observation {
  subject: string;
  state: string;
  data: Record<string, unknown>;
  /** The partner subject only: the partner's revision the state was read at (newer wins; a replica behind never turns it back). */
  revision?: number;
}

/** The calm state of a subject: what it is taken to be before it was ever judged. */
export function calmStateOf(subject: string): string {
  if (subject.startsWith('endpoint:')) return 'ok';
  return subject === 'dead_letters' ? 'none' : 'ACTIVE';
}

/**
 * The notification a transition of `subject` from `from` to `to` is, or none: failing and its
 * recovery (only after the failing was notified: `failingNotified`), dead letters starting to
 * wait (their clearing is no news), the partner disabled or enabled.
 */
export function notificationOf(subject: string, from: string, to: string, failingNotified: boolean): NotificationType | undefined {
  if (subject.startsWith('endpoint:')) {
    if (to === 'failing') return 'endpoint.failing';
    return from === 'failing' && failingNotified ? 'endpoint.recovered' : undefined;
  }
  if (subject === 'dead_letters') return to === 'waiting' ? 'dead_letters.waiting' : undefined;
  return to === 'DISABLED' ? 'partner.disabled' : from === 'DISABLED' ? 'partner.enabled' : undefined;
}

/** The body a partner receives (the same bytes on every attempt): no secret, ever. */
export function notificationBody(n: { type: NotificationType; id: string; occurredAt: Date; partnerId: string; data: object }): string {
  return JSON.stringify({ type: n.type, id: n.id, occurred_at: n.occurredAt.toISOString(), partner_id: n.partnerId, data: n.data });
}
