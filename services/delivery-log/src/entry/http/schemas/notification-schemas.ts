/*
 * What the notification routes take and answer (portal-notification-routes.ts,
 * admin-notification-routes.ts; docs/notifications.md). The URL's values are judged in the use
 * case (manage-notifications.ts), which names the field as the endpoint routes do.
 */
import { z } from 'zod';
import { NOTIFICATION_TYPES } from '../../../domain/notification-events';
import { one, pageOf, pageQuery, timestamp } from './schemas';

const reason = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .optional()
  .meta({ description: 'Why, for the audit (default: changed from the partner API)' });
const NotificationType = z.enum(NOTIFICATION_TYPES).meta({ id: 'NotificationType' });

export const NotificationSubscribeBody = z
  .strictObject({
    url: z
      .string()
      .max(2100)
      .meta({
        description:
          'Absolute https URL (plain http only to a loopback address the deployment allows), without credentials; refused when its host ' +
          'is or resolves to a private, loopback, link-local or metadata address the deployment does not allow (the SSRF guard)',
      }),
    events: z
      .array(NotificationType)
      .min(1)
      .max(NOTIFICATION_TYPES.length)
      .refine((events) => new Set(events).size === events.length, 'names an event twice')
      .optional()
      .meta({ description: 'The events to receive; absent: all of them' }),
    reason,
  })
  .meta({ id: 'NotificationSubscribeRequest' });

export const NotificationDeleteBody = z.strictObject({ reason }).meta({ id: 'NotificationDeleteRequest' });

export const NotificationSwitchBody = z
  .strictObject({
    reason: z.string().trim().min(1).max(500).meta({ description: 'Why, for the audit' }),
    enabled: z.boolean().meta({
      description: 'false: nothing is sent to the partner’s notification URL (what was still to send is dropped); true: sent again',
    }),
  })
  .meta({ id: 'NotificationSwitchRequest' });

export const NotificationListQuery = z.strictObject({ cursor: pageQuery.cursor, limit: pageQuery.limit });

const Subscription = z
  .object({
    url: z.string(),
    events: z.array(NotificationType),
    operator_off: z.boolean().meta({ description: 'An operator switched the partner’s notifications off: none is sent' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'NotificationSubscription' });

export const NotificationRecord = z
  .object({
    notification_id: z.string().meta({ description: 'The body’s id: one per transition, the same on every attempt' }),
    type: NotificationType,
    occurred_at: timestamp,
    state: z.enum(['pending', 'delivered', 'given_up', 'suppressed']).meta({
      description:
        'pending: to be sent (again); delivered: answered 200; given_up: every attempt failed; suppressed: not sent (the hourly bound, or an operator switched notifications off)',
    }),
    attempts: z.number().int(),
    last_http_status: z.number().int().nullable(),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'Why the last attempt failed (an answer other than 200, a timeout, a refused connection …)' }),
    settled_at: timestamp.nullable(),
    body: z.record(z.string(), z.unknown()).meta({ description: 'The body as sent' }),
  })
  .meta({ id: 'NotificationRecord' });

export const NotificationSettingsAnswer = one(
  z.object({
    subscription: Subscription.nullable(),
    events: z.array(NotificationType).meta({ description: 'Every event a subscription may name' }),
    failing_after_minutes: z.number().meta({ description: 'How long an endpoint fails, with no success, before endpoint.failing' }),
    per_hour: z.number().int().meta({ description: 'Notifications sent to one partner in an hour at most' }),
  }),
  'NotificationSettingsAnswer',
);
export const NotificationSubscriptionAnswer = one(Subscription, 'NotificationSubscriptionAnswer');
export const NotificationPage = pageOf(NotificationRecord, 'NotificationPage');
export const OperatorNotificationsAnswer = one(
  z.object({ subscription: Subscription.nullable(), recent: z.array(NotificationRecord) }),
  'OperatorNotificationsAnswer',
);

/** A stored subscription as the APIs answer it. */
export function subscriptionAnswer(s: { url: string; events: string[]; operatorOff: boolean; createdAt: Date; updatedAt: Date }) {
  return { url: s.url, events: s.events, operator_off: s.operatorOff, created_at: s.createdAt, updated_at: s.updatedAt };
}
