/*
 * The operational notifications' calls the console makes (docs/notifications.md): a partner's
 * subscription and what was sent to it; an operator's view and switch.
 */
import { client, write, type Schema } from '../api';

export type NotificationSettings = Schema<'NotificationSettingsAnswer'>['data'];
export type NotificationView = Schema<'NotificationRecord'>;
export type NotificationTypeName = Schema<'NotificationType'>;

export const notificationSettingsCall = () => client.GET('/api/portal/v1/notifications');
export const sentNotificationsCall = () => client.GET('/api/portal/v1/notifications/sent', { params: { query: { limit: 50 } } });

export const subscribe = (url: string, events: NotificationTypeName[]) =>
  write(client.PUT('/api/portal/v1/notifications', { body: { url, events } }));
export const unsubscribe = () => write(client.DELETE('/api/portal/v1/notifications', { body: {} }));

const partnerPath = (partnerId: string) => ({ params: { path: { partnerId } } });
export const operatorNotificationsCall = (partnerId: string) =>
  client.GET('/api/admin/v1/partners/{partnerId}/notifications', partnerPath(partnerId));
export const switchNotifications = (partnerId: string, enabled: boolean, reason: string) =>
  write(client.POST('/api/admin/v1/partners/{partnerId}/notifications', { ...partnerPath(partnerId), body: { enabled, reason } }));
