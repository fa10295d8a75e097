import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ErrorCodes, Refusal } from '@hookstream/errors';
import { errorBody, type Logger } from '@hookstream/runtime';
import type { AnswerRecorder } from '../../domain/answer-recorder';
import { RECORDED_STATUSES, rejectionOf, type WebhookRejection } from '../../domain/webhook-rejection';
import type { IngressMetrics } from '../../metrics';
import { recordRequest } from './request-metrics';
import { stateOf } from './request-state';
import { send } from './responses';
import { refusalOfBodyRead } from './webhook-request';

/** The contract's error body (spec 2.4) of a refusal, as sent: status, data, message, code, error_code (no fields). */
export function refusalBody(refusal: Refusal): string {
  return JSON.stringify(errorBody(refusal.httpStatus, refusal.code, refusal.message));
}

export interface ErrorHandlerOptions {
  /** The webhook's path: only its requests are counted, logged and recorded. */
  webhookPath: string;
  bodyLimitBytes: number;
  metrics: IngressMetrics;
  logger: Logger;
  /** Told of an authenticated partner's 400s and 409s, after the answer is sent. */
  rejections: AnswerRecorder<WebhookRejection>;
}

/**
 * The one place the ingress turns errors into answers: a Refusal keeps its status, code, message
 * and Retry-After; body-parser's errors become theirs; anything else is a logged 500. Also the
 * 404 of any other path.
 */
export function createErrorHandler(options: ErrorHandlerOptions): { notFound: RequestHandler; onError: ErrorRequestHandler } {
  const { webhookPath, logger } = options;

  const notFound: RequestHandler = (_req, _res, next) => next(new Refusal(ErrorCodes.NOT_FOUND, 'no such resource'));

  const onError: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    let refusal = error instanceof Refusal ? error : refusalOfBodyRead(error, options.bodyLimitBytes, req, res);
    if (!refusal) {
      logger.error(
        { err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error), path: req.path },
        'unexpected error',
      );
      refusal = new Refusal(ErrorCodes.INTERNAL, 'unexpected server error; retry later');
    }
    const status = refusal.httpStatus;
    const isWebhook = req.path === webhookPath;
    const state = stateOf(res);
    if (status === 405) res.setHeader('Allow', 'POST');
    if (isWebhook) recordRequest(options.metrics, res, status, refusal.code);
    if (status >= 400 && status !== 401 && status !== 404 && isWebhook) {
      logger.info(
        { partnerId: state.partner?.partner_id, requestId: state.body?.requestId, status, errorCode: refusal.code },
        refusal.message,
      );
    }
    send(res, status, refusalBody(refusal), refusal.retryAfterSeconds);
    // After the answer, so it never waits for this; only a known partner's (an unknown key's 401 is only counted, above).
    const { partner } = state;
    if (partner && isWebhook && RECORDED_STATUSES.has(status)) {
      const answered = refusal;
      // The body's bytes as read (after their coding), when they were: a refusal of the fields or of its JSON has them.
      const request = { rawHeaders: req.rawHeaders, ...(Buffer.isBuffer(req.body) ? { bytes: req.body } : {}) };
      options.rejections.record(partner.partner_id, () =>
        rejectionOf(partner.partner_id, state.receivedAt!, answered, state.body, request),
      );
    }
  };

  return { notFound, onError };
}
