/** The console's calls about refused webhooks: one opened, with its request as it arrived. */
import { client, type Schema, type Session } from '../api';

export type RefusedWebhook = Schema<'RejectedWebhookDetail'>;

/** Reads one refused webhook: the partner's own, or (operators) any partner's; for useApi. */
export function refusedWebhookCall(session: Session, rejectionId: string) {
  const params = { params: { path: { rejectionId } } };
  return () =>
    session.kind === 'partner'
      ? client.GET('/api/portal/v1/rejected-webhooks/{rejectionId}', params)
      : client.GET('/api/admin/v1/rejected-webhooks/{rejectionId}', params);
}
