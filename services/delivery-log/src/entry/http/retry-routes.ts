/*
 * Retry now and test events: POST /deliveries/{id}/retry on both APIs (a partner's own deliveries,
 * or any for an operator), POST /endpoints/{id}/retry-failing (every failing delivery of one of its
 * endpoints) and POST /endpoints/{id}/test on the partner API. Thin: decode, one use case
 * (domain/retry-delivery.ts, domain/retry-failing-deliveries.ts, domain/send-test-event.ts), answer.
 */
import express, { Router, type Request } from 'express';
import type { DeliveryRetrier } from '../../domain/retry-delivery';
import { partnerOperator } from '../../domain/resend-delivery';
import type { PartnerHandle } from './partner-handle';
import { operatorActor, operatorOf } from './auth/operator-auth';
import { notFound } from './refusals';
import { idParam, parseInput } from './request-input';
import { AdminRetryBody, RetryBody, RetryFailingBody, TestEventBody } from './schemas/retry-schemas';

const body = express.json({ limit: '16kb', type: () => true });

/** `scopeOf`: the caller's handle (partner-handle.ts), its use cases bound to it. */
export function portalRetryRoutes(scopeOf: (req: Request) => PartnerHandle): Router {
  const router = Router();

  router.post('/deliveries/:deliveryId/retry', body, async (req, res) => {
    const id = idParam(req.params.deliveryId);
    const input = parseInput(RetryBody, req.body ?? {}, 'body');
    if (!id) throw notFound('delivery');
    const { partnerId, retrier } = scopeOf(req);
    const actor = { type: 'partner' as const, id: partnerId, name: partnerOperator(partnerId) };
    res.status(202).json({ data: await retrier.retry(actor, partnerId, id, input.reason ?? 'retried now from the partner API') });
  });

  router.post('/endpoints/:endpointId/retry-failing', body, async (req, res) => {
    const id = idParam(req.params.endpointId);
    const input = parseInput(RetryFailingBody, req.body ?? {}, 'body');
    if (!id) throw notFound('endpoint');
    const { partnerId, failingRetry } = scopeOf(req);
    const reason = input.reason ?? 'retried now from the partner API';
    res.json({ data: await failingRetry.retryAll(partnerId, id, { dryRun: input.dry_run, reason }) });
  });

  router.post('/endpoints/:endpointId/test', body, async (req, res) => {
    const id = idParam(req.params.endpointId);
    const input = parseInput(TestEventBody, req.body ?? {}, 'body');
    if (!id) throw notFound('endpoint');
    const result = await scopeOf(req).sendTestEvent(id, input.status);
    // 202: sent, its attempt not in the log in time; the delivery id says where to look.
    res.status(result.answered ? 200 : 202).json({ data: result });
  });

  return router;
}

export function adminRetryRoutes(retrier: DeliveryRetrier): Router {
  const router = Router();
  router.post('/deliveries/:deliveryId/retry', body, async (req, res) => {
    const id = idParam(req.params.deliveryId);
    const input = parseInput(AdminRetryBody, req.body ?? {}, 'body');
    if (!id) throw notFound('delivery');
    const actor = operatorActor(operatorOf(res.locals));
    res.status(202).json({ data: await retrier.retry(actor, undefined, id, input.reason) });
  });
  return router;
}
