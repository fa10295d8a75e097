/*
 * The operational notifications' paths in the OpenAPI document (docs/notifications.md): the
 * partner's subscription and the notifications sent to it (portal-notification-routes.ts), and the
 * operator's view and switch (admin-notification-routes.ts).
 */
import { ErrorCodes } from '@hookstream/errors';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ADMIN_BASE, PORTAL_BASE } from '../paths';
import {
  NotificationDeleteBody,
  NotificationListQuery,
  NotificationPage,
  NotificationSettingsAnswer,
  NotificationSubscribeBody,
  NotificationSubscriptionAnswer,
  NotificationSwitchBody,
  OperatorNotificationsAnswer,
} from '../schemas/notification-schemas';
import { NoQuery } from '../schemas/schemas';
import * as admin from './admin-parts';
import { badBody, badQuery, json, refusal } from './openapi-parts';
import { operation, partnerRefusals } from './portal-paths';

const partnerWriteRefusals = {
  ...partnerRefusals,
  ...badBody,
  '403': refusal(
    'A portal token (or a console session opened with one): changes need the API key; or the insurer turned the partner’s ' +
      'self-service off; or a console write from another origin or without its x-csrf-token',
    [ErrorCodes.FORBIDDEN],
  ),
};
const EVENTS =
  'endpoint.failing (an enabled endpoint’s sends failed with no success for DELIVERY_LOG_NOTIFY_FAILING_MINUTES, or the circuit opened), ' +
  'endpoint.recovered (its first success after a notified endpoint.failing), dead_letters.waiting (from none waiting to some), ' +
  'partner.disabled and partner.enabled (the insurer switched the partner). Each once per transition.';

export const notificationPaths: ZodOpenApiPathsObject = {
  [`${PORTAL_BASE}/notifications`]: {
    get: operation('The partner’s notification subscription', {
      operationId: 'getNotifications',
      requestParams: { query: NoQuery },
      description: `The URL operational notifications go to and the events wanted (null: none). ${EVENTS}`,
      responses: {
        '200': { description: 'The subscription, the events there are and the bounds', ...json(NotificationSettingsAnswer) },
        ...partnerRefusals,
        ...badQuery,
      },
    }),
    put: operation('Subscribe one URL to operational notifications', {
      operationId: 'putNotifications',
      description:
        'Replaces the subscription. The URL is judged as a callback endpoint’s (the SSRF guard; 400 naming url) and must be https. ' +
        'Notifications are signed with the partner’s signing secret as its callbacks are (Standard Webhooks or HMAC_SHA256; other ' +
        'methods: 409). API key only; within DELIVERY_LOG_ENDPOINT_CHANGES_PER_HOUR changes an hour (429). Audited, the URL without its query.',
      requestBody: { required: true, ...json(NotificationSubscribeBody) },
      responses: {
        '200': { description: 'The subscription kept', ...json(NotificationSubscriptionAnswer) },
        ...partnerWriteRefusals,
        '409': refusal('Callbacks to the partner are signed by a method without a signing secret', [ErrorCodes.CONFLICT]),
      },
    }),
    delete: operation('Unsubscribe from operational notifications', {
      operationId: 'deleteNotifications',
      description: 'Nothing is sent any more. API key only. Audited.',
      requestBody: { required: false, ...json(NotificationDeleteBody) },
      responses: {
        '204': { description: 'Unsubscribed' },
        ...partnerWriteRefusals,
        '404': refusal('No subscription', [ErrorCodes.NOT_FOUND]),
      },
    }),
  },
  [`${PORTAL_BASE}/notifications/sent`]: {
    get: operation('The notifications sent to the partner, newest first', {
      operationId: 'listNotifications',
      requestParams: { query: NotificationListQuery },
      description: 'Each with its body as sent and its outcome (pending, delivered, given_up, suppressed). Kept as long as deliveries are.',
      responses: {
        '200': { description: 'A page of notifications', ...json(NotificationPage) },
        ...partnerRefusals,
        ...badQuery,
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/notifications`]: {
    get: admin.operation('A partner’s notification subscription and its 20 latest notifications', {
      operationId: 'adminGetNotifications',
      requestParams: { ...admin.partnerPath, query: NoQuery },
      responses: {
        '200': { description: 'The subscription (null: none) and the latest notifications', ...json(OperatorNotificationsAnswer) },
        ...admin.readRefusals,
        ...badQuery,
        ...admin.notFound('partner'),
      },
    }),
    post: admin.operation('Switch a partner’s notifications off or on', {
      operationId: 'adminSwitchNotifications',
      description:
        'Off: nothing is sent to the partner’s notification URL, and what was still to send is dropped. Audited with the reason.',
      requestParams: admin.partnerPath,
      requestBody: { required: true, ...json(NotificationSwitchBody) },
      responses: {
        '200': { description: 'The subscription after the switch', ...json(NotificationSubscriptionAnswer) },
        ...admin.writeRefusals,
        '404': refusal('No partner with that id, or it has no subscription', [ErrorCodes.NOT_FOUND]),
      },
    }),
  },
};
