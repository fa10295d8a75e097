import type { Response } from 'express';
import { type Partner } from '@hookstream/partners';
import type { BodyAsRead } from '../../domain/webhook-rejection';

/** What the webhook route learns of a request as it goes, kept on `res.locals` for the answer, its metrics and its record. */
export interface WebhookRequestState {
  /** When the request reached the route (process.hrtime), for its duration. */
  started?: bigint;
  /** The partner its API key names, once checked. */
  partner?: Partner;
  /** Epoch ms at which it was authenticated: the received_at of its record. */
  receivedAt?: number;
  /** What was read of its body so far, for the record of a refusal. */
  body?: BodyAsRead;
}

export const stateOf = (res: Response): WebhookRequestState => res.locals as WebhookRequestState;
