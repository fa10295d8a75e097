import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { Logger } from '@hookstream/runtime';
import { type PartnerDirectory } from '@hookstream/partners';
import type { AcceptWebhookDeps } from '../../domain/accept-webhook';
import type { AnswerRecorder } from '../../domain/answer-recorder';
import { receiveWebhook } from '../../domain/receive-webhook';
import type { WebhookRejection } from '../../domain/webhook-rejection';
import { replayOf, type WebhookReplay } from '../../domain/webhook-replay';
import type { IngressMetrics } from '../../metrics';
import { createErrorHandler } from './error-handler';
import { recordRequest } from './request-metrics';
import { stateOf } from './request-state';
import { responseTo, send } from './responses';
import { admitWebhook } from './webhook-admission';
import { decodeBody } from './webhook-request';

export const WEBHOOK_PATH = '/api/integration/partner/webhook';

export interface WebhookRoutesOptions {
  /** Prefix of the webhook path, e.g. "" or "/v1". */
  basePath: string;
  /** Largest body accepted, in bytes. */
  bodyLimitBytes: number;
  /** Longest a request may wait for its durable write before a 503. */
  writeTimeoutMs: number;
  /** True once the process is shutting down: new webhooks are refused with 503 while those in flight finish. */
  draining: () => boolean;
  partners: PartnerDirectory;
  accept: AcceptWebhookDeps;
  metrics: IngressMetrics;
  logger: Logger;
  openapi: object;
  /** Told of an authenticated partner's 400s and 409s, after the answer is sent. */
  rejections: AnswerRecorder<WebhookRejection>;
  /** Told of an authenticated partner's webhooks answered from the ledger (replayed), after the answer is sent. */
  replays: AnswerRecorder<WebhookReplay>;
}

/**
 * POST {base}/api/integration/partner/webhook (spec 4.2), in this order: the API key (401), the
 * content type and coding (415), the body size (413), JSON (400) (webhook-admission.ts,
 * webhook-request.ts), then the domain's receiveWebhook: the fields (400), idempotency and the
 * durable write. Every answer is the contract's JSON (2.3 or 2.4), never HTML.
 */
export function createWebhookRoutes(options: WebhookRoutesOptions): {
  router: express.Router;
  notFound: RequestHandler;
  onError: ErrorRequestHandler;
} {
  const router = express.Router();
  const path = `${options.basePath}${WEBHOOK_PATH}`;
  const logger = options.logger.child({ module: 'webhook' });
  const readBody = express.raw({ type: () => true, limit: options.bodyLimitBytes });

  const handle: RequestHandler = async (req, res, next) => {
    try {
      const state = stateOf(res);
      const partner = state.partner!;
      const body = decodeBody(req.body, (state.body = {}));
      const outcome = await receiveWebhook(partner, body, options.accept, options.writeTimeoutMs);
      const answer = responseTo(outcome);
      recordRequest(options.metrics, res, answer.status, undefined);
      logger.debug({ partnerId: partner.partner_id, requestId: body.requestId, outcome: outcome.kind }, 'webhook accepted');
      send(res, answer.status, answer.body);
      // After the answer, so it never waits for this: the partner can see its retry was recognised.
      if (outcome.kind === 'replayed') {
        const { webhook } = outcome;
        options.replays.record(partner.partner_id, () => replayOf(partner.partner_id, state.receivedAt!, webhook, body.fingerprint!));
      }
    } catch (error) {
      next(error);
    }
  };

  router.post(path, admitWebhook({ draining: options.draining, partners: options.partners, logger }), readBody, handle);
  router.all(path, (_req, _res, next) => next(new Refusal(ErrorCodes.METHOD_NOT_ALLOWED, 'only POST is allowed here')));
  router.get('/openapi.json', (_req, res) => res.json(options.openapi));

  const { notFound, onError } = createErrorHandler({
    webhookPath: path,
    bodyLimitBytes: options.bodyLimitBytes,
    metrics: options.metrics,
    logger,
    rejections: options.rejections,
  });
  return { router, notFound, onError };
}
