/*
 * The delivery log's HTTP surface: the partner API under /api/portal/v1, /openapi.json, and the one
 * place where refusals and failures become answers (the inbound contract's error body; a 500 says
 * nothing of its cause, which is logged).
 */
import { HookstreamError, ReplayRefused, type Logger, type PartnerDirectory } from '@hookstream/shared';
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { DeliveryLogDb } from '../store/database';
import { ApiError, ApiErrorCodes } from './api-errors';
import { deliveryLogOpenApi } from './openapi';
import { authenticatePartner } from './partner-auth';
import { PORTAL_BASE, portalRoutes } from './portal-routes';
import type { PortalTokens } from './portal-tokens';
import type { DeliveryResender } from '../resend/resend-delivery';

export interface ApiOptions {
  db: DeliveryLogDb;
  partners: PartnerDirectory;
  portalTokens: PortalTokens;
  resender: DeliveryResender;
  logger: Logger;
  draining: () => boolean;
}

export function apiRouter(options: ApiOptions): { router: Router; notFound: RequestHandler; onError: ErrorRequestHandler } {
  const logger = options.logger.child({ module: 'api' });
  const router = Router();
  const openapi = deliveryLogOpenApi();
  router.get('/openapi.json', (_req, res) => res.json(openapi));
  router.use(PORTAL_BASE, (_req, _res, next) => {
    next(options.draining() ? new ApiError(503, ApiErrorCodes.UNAVAILABLE, 'the service is shutting down; retry later', 1) : undefined);
  });
  router.use(PORTAL_BASE, authenticatePartner(options.partners, options.portalTokens), portalRoutes(options.db, options.resender));

  const notFound: RequestHandler = (req, _res, next) =>
    next(
      req.method === 'GET' || req.method === 'HEAD'
        ? new ApiError(404, ApiErrorCodes.NOT_FOUND, 'no such resource')
        : new ApiError(405, ApiErrorCodes.METHOD_NOT_ALLOWED, `${req.method} is not allowed here`),
    );

  const onError: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const e = error as { type?: string; status?: number; code?: string } | undefined;
    let refusal: ApiError;
    if (error instanceof ApiError) refusal = error;
    else if (error instanceof ReplayRefused) refusal = new ApiError(409, ApiErrorCodes.CONFLICT, error.message);
    else if (e?.type === 'entity.too.large') refusal = new ApiError(413, ApiErrorCodes.VALIDATION, 'the body is too large');
    else if (e?.status === 400) refusal = new ApiError(400, ApiErrorCodes.VALIDATION, 'the body is not JSON');
    else if ((error instanceof HookstreamError && error.retryable) || isStoreUnavailable(e?.code)) {
      // Kafka or the database away: the same request may succeed in a moment.
      logger.warn({ err: error, method: req.method, path: req.path }, 'a dependency is unavailable; answered 503');
      refusal = new ApiError(503, ApiErrorCodes.UNAVAILABLE, 'a store the answer needs is unavailable; retry later', 2);
    } else {
      logger.error({ err: error, method: req.method, path: req.path }, 'unexpected error answering a request');
      refusal = new ApiError(500, ApiErrorCodes.INTERNAL, 'unexpected server error; retry later');
    }
    if (refusal.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
    if (refusal.httpStatus === 405) res.setHeader('Allow', req.path.endsWith('/resend') ? 'POST' : 'GET');
    res.status(refusal.httpStatus).json(refusal.body());
  };

  return { router, notFound, onError };
}

/** A connection to PostgreSQL refused, cut or closed by a server shutting down (node errors, SQLSTATE classes 08 and 57P). */
function isStoreUnavailable(code: string | undefined): boolean {
  return code !== undefined && (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code) || /^(08|57P)/.test(code));
}
