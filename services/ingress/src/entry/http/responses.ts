import { HookstreamError } from '@hookstream/errors';
import { errorBody as sharedErrorBody, type ErrorBody as SharedErrorBody } from '@hookstream/runtime';
import type { AcceptedWebhook, WebhookOutcome } from '../../domain/webhook-outcome';

/**
 * The contract's response bodies: success (spec 2.3) and error (spec 2.4), and the error codes.
 * INVALID_PAYLOAD_VALIDATION_ERR and INVALID_API_KEY_ERR are the contract's; the others are
 * ours where it gives none (README "Inbound webhook").
 */
export const InboundErrorCodes = {
  VALIDATION: 'INVALID_PAYLOAD_VALIDATION_ERR',
  API_KEY: 'INVALID_API_KEY_ERR',
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_KEY_REUSED_ERR',
  IN_PROGRESS: 'REQUEST_IN_PROGRESS_ERR',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE_ERR',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE_ERR',
  NOT_FOUND: 'NOT_FOUND_ERR',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED_ERR',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE_ERR',
  INTERNAL: 'INTERNAL_SERVER_ERR',
  /** Node's HTTP parser refused the request before it reached a route (client-errors.ts). */
  MALFORMED_REQUEST: 'MALFORMED_REQUEST_ERR',
  HEADERS_TOO_LARGE: 'REQUEST_HEADERS_TOO_LARGE_ERR',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT_ERR',
} as const;

export type InboundErrorCode = (typeof InboundErrorCodes)[keyof typeof InboundErrorCodes];

export type ErrorBody = SharedErrorBody<InboundErrorCode>;

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

export const errorBody = (code: number, errorCode: InboundErrorCode, message: string): ErrorBody =>
  sharedErrorBody(code, errorCode, message);

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

/**
 * A refusal the HTTP layer turns into the contract's error response (spec 2.4): its HTTP status,
 * the contract's error_code, and Retry-After for a 503. Retryable exactly when it is a 503.
 * `fields` are the paths of the fields its message names, for the record of the rejection.
 */
export class InboundError extends HookstreamError {
  constructor(
    readonly httpStatus: number,
    readonly errorCode: InboundErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
    readonly fields: readonly string[] = [],
  ) {
    super(errorCode, message, { retryable: httpStatus === 503, details: { httpStatus, errorCode } });
  }

  body(): ErrorBody {
    return errorBody(this.httpStatus, this.errorCode, this.message);
  }
}

/** The 2.3 body of an accepted webhook as sent: the one builder for a live answer and a replay (the same bytes). */
export function acceptedBody(webhook: AcceptedWebhook): string {
  return JSON.stringify(successBody(webhook.requestId, webhook.transactionNumber, webhook.transactionType));
}

/** The response to an outcome of acceptWebhook: a 200 with the 2.3 body, or the InboundError to answer with. */
export function responseTo(outcome: WebhookOutcome): { status: 200; body: string } {
  switch (outcome.kind) {
    case 'accepted':
    case 'replayed':
      return { status: 200, body: acceptedBody(outcome.webhook) };
    case 'conflict':
      throw new InboundError(
        409,
        InboundErrorCodes.IDEMPOTENCY_CONFLICT,
        'request_id was already used with a different payload',
        undefined,
        ['request_id'],
      );
    case 'in-progress':
      throw new InboundError(503, InboundErrorCodes.IN_PROGRESS, outcome.message, 1);
    case 'unavailable':
      throw new InboundError(503, InboundErrorCodes.UNAVAILABLE, outcome.message, 5);
  }
}
