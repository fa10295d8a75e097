/** The console's calls about refused webhooks: one opened, with its request as it arrived. */
import type { z } from 'zod';
import type { RejectedWebhookAnswer } from '../../../src/entry/http/schemas/webhook-schemas';
import { apiBase, type Session } from '../api';

export type RefusedWebhook = z.infer<typeof RejectedWebhookAnswer>['data'];

/** Where one refused webhook is read: the partner's own, or (operators) any partner's. */
export function refusedWebhookUrl(session: Session, rejectionId: string): string {
  return `${apiBase(session)}/rejected-webhooks/${encodeURIComponent(rejectionId)}`;
}
