import type { Response } from 'express';
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { AcceptedWebhook, WebhookOutcome } from '../../domain/webhook-outcome';

/** The contract's success body (spec 2.3); its error body (2.4) is made by the error handler (error-handler.ts). */
export interface SuccessBody {
  status: 'success';
  data: {
    request_id: string;
    transaction_number: string;
    transaction_type: 'POLICY' | 'CLAIM';
    journey_status: 'WEBHOOK_RECEIVED';
    status: 'COMPLETED';
  };
  message: string;
  code: 200;
  request_id: string;
}

export function successBody(requestId: string, transactionNumber: string, transactionType: 'POLICY' | 'CLAIM'): SuccessBody {
  return {
    status: 'success',
    data: {
      request_id: requestId,
      transaction_number: transactionNumber,
      transaction_type: transactionType,
      journey_status: 'WEBHOOK_RECEIVED',
      status: 'COMPLETED',
    },
    message: 'Webhook received',
    code: 200,
    request_id: requestId,
  };
}

/** The 2.3 body of an accepted webhook as sent: the one builder for a live answer and a replay (the same bytes). */
export function acceptedBody(webhook: AcceptedWebhook): string {
  return JSON.stringify(successBody(webhook.requestId, webhook.transactionNumber, webhook.transactionType));
}

/** The response to an outcome of receiveWebhook: a 200 with the 2.3 body, or the Refusal to answer with (thrown). */
export function responseTo(outcome: WebhookOutcome): { status: 200; body: string } {
  switch (outcome.kind) {
    case 'accepted':
    case 'replayed':
      return { status: 200, body: acceptedBody(outcome.webhook) };
    case 'invalid': {
      const { problems } = outcome;
      throw new Refusal(ErrorCodes.INVALID_PAYLOAD, problems.map((p) => p.message).join('; '), {
        fields: problems.map((p) => ({ field: p.path, message: p.message })),
      });
    }
    case 'conflict': {
      const message = 'request_id was already used with a different payload';
      throw new Refusal(ErrorCodes.IDEMPOTENCY_KEY_REUSED, message, { fields: [{ field: 'request_id', message }] });
    }
    case 'in-progress':
      throw new Refusal(ErrorCodes.REQUEST_IN_PROGRESS, outcome.message, { retryAfterSeconds: 1 });
    case 'unavailable':
      throw new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, outcome.message, { retryAfterSeconds: 5 });
  }
}

/**
 * Writes a JSON answer through Node's response directly: express's res.send would also hash the
 * body for an ETag (meaningless on a POST), set the type through its helpers and check freshness:
 * about 3 % of the ingress's CPU profile under load.
 */
export function send(res: Response, status: number, text: string, retryAfterSeconds?: number): void {
  res.statusCode = status;
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
