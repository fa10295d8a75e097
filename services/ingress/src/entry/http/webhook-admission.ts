import type { RequestHandler } from 'express';
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { Logger } from '@hookstream/runtime';
import { type PartnerDirectory } from '@hookstream/partners';
import { stateOf } from './request-state';
import { refusalOfContent } from './webhook-request';

/**
 * The checks a webhook request passes before its body is read, in this order: the service taking
 * webhooks at all (503), the API key (401), the content type and coding (415).
 */
export function admitWebhook(options: {
  /** True once the process is shutting down. */
  draining: () => boolean;
  partners: PartnerDirectory;
  logger: Logger;
}): RequestHandler {
  const { partners, logger } = options;
  return (req, res, next) => {
    const state = stateOf(res);
    state.started = process.hrtime.bigint();
    if (options.draining()) {
      // Another replica takes it: nothing of it was read or written here.
      next(new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, 'the service is shutting down; retry later', { retryAfterSeconds: 1 }));
      return;
    }
    if (!partners.ready) {
      // Until partners are loaded a valid key would look unknown: no 401 may be given yet. (The
      // request_id ledger is in PostgreSQL: nothing of it is loaded; a request with a request_id
      // while its store is not open is answered 503 by acceptWebhook.)
      next(new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, 'the service is starting; retry later', { retryAfterSeconds: 2 }));
      return;
    }
    const check = partners.checkApiKey(req.get('x-api-key'));
    if (!check.ok) {
      logger.info({ reason: check.reason, partnerId: check.partnerId }, 'webhook refused: API key');
      next(new Refusal(ErrorCodes.INVALID_API_KEY, check.reason === 'missing' ? 'x-api-key header is missing' : 'x-api-key is not valid'));
      return;
    }
    state.partner = check.partner;
    state.receivedAt = Date.now();
    next(refusalOfContent(req, res));
  };
}
