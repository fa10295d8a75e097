/*
 * The delivery log's HTTP surface: the partner API under /api/portal/v1, the operator API under
 * /api/admin/v1, the console under /console/, /openapi.json, and the one place where refusals and failures become answers (the
 * inbound contract's error body; a 500 says nothing of its cause, which is logged).
 */
import { AvroInvalidError, FieldProblemsError, HookstreamError, NotFoundError } from '@hookstream/errors';
import { PartnerChangeRefused, type OperatorDirectory, type PartnerDirectory } from '@hookstream/partners';
import { ReplayRefused } from '@hookstream/dead-letters';
import { type Logger } from '@hookstream/runtime';
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { DeliveryLogDb } from '../store/tables';
import { adminDlqRoutes } from './admin-dlq-routes';
import { adminPartnerRoutes, type AdminPartnerDeps } from './admin-partner-routes';
import { adminSearchRoutes } from './admin-search-routes';
import { ApiError, ApiErrorCodes, invalidInput, notFound } from './api-errors';
import { deliveryLogOpenApi } from './openapi';
import { authenticateOperator } from './operator-auth';
import { authenticatePartner } from './partner-auth';
import { ADMIN_BASE, PORTAL_BASE } from './paths';
import { partnerRateLimit } from './partner-rate-limit';
import { portalRoutes, type PortalDeps } from './portal-routes';
import type { IssuedCredentials } from './issued-credentials';
import type { PortalTokens } from './portal-tokens';
import { consoleRoutes } from '../console/console-routes';
import type { ConsoleSessions } from '../console/console-sessions';
import type { DeadLetterSessions } from '../resend/dead-letter-sessions';

export interface ApiOptions extends PortalDeps, Omit<AdminPartnerDeps, 'partners'> {
  db: DeliveryLogDb;
  partners: PartnerDirectory;
  operators: OperatorDirectory;
  portalTokens: PortalTokens;
  issuedCredentials: IssuedCredentials;
  sessions: ConsoleSessions;
  deadLetters: DeadLetterSessions;
  logger: Logger;
  draining: () => boolean;
  /** Requests one partner may make to this replica per second (partner-rate-limit.ts). */
  partnerRequestsPerSecond: number;
}

export function apiRouter(options: ApiOptions): { router: Router; notFound: RequestHandler; onError: ErrorRequestHandler } {
  const logger = options.logger.child({ module: 'api' });
  const router = Router();
  const openapi = deliveryLogOpenApi();
  router.get('/openapi.json', (_req, res) => res.json(openapi));
  const unlessDraining: RequestHandler = (_req, _res, next) => {
    next(options.draining() ? new ApiError(503, ApiErrorCodes.UNAVAILABLE, 'the service is shutting down; retry later', 1) : undefined);
  };
  router.use(consoleRoutes(options));
  router.use(
    PORTAL_BASE,
    unlessDraining,
    authenticatePartner(options.partners, options.portalTokens, options.sessions),
    partnerRateLimit(options.partnerRequestsPerSecond),
    portalRoutes(options),
  );
  router.use(
    ADMIN_BASE,
    unlessDraining,
    authenticateOperator(options.operators, options.sessions),
    adminSearchRoutes(options.db),
    adminPartnerRoutes(options),
    adminDlqRoutes(options.deadLetters, options.lanes),
  );

  const allowedMethods = methodsByPath(openapi as { paths: Record<string, Record<string, unknown>> });
  const notFoundHere: RequestHandler = (req, res, next) => {
    const allowed = allowedMethods(req.path);
    if (allowed.length === 0) {
      next(new ApiError(404, ApiErrorCodes.NOT_FOUND, 'no such resource'));
      return;
    }
    res.setHeader('Allow', allowed.join(', '));
    next(new ApiError(405, ApiErrorCodes.METHOD_NOT_ALLOWED, `${req.method} is not allowed here; ${allowed.join(', ')} is`));
  };

  const onError: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const refusal = refusalOf(error, (cause) => {
      if (cause === 'unavailable')
        logger.warn({ err: error, method: req.method, path: req.path }, 'a dependency is unavailable; answered 503');
      else if (cause === 'unstorable')
        // An error, not a warning: the client gets its 400, but a validation gap (or a value of our own that the store refuses) is ours to fix.
        logger.error(
          { err: error, method: req.method, path: req.path },
          'an input validation let through could not be stored; answered 400',
        );
      else logger.error({ err: error, method: req.method, path: req.path }, 'unexpected error answering a request');
    });
    if (refusal.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
    res.status(refusal.httpStatus).json(refusal.body());
  };

  return { router, notFound: notFoundHere, onError };
}

/** What a thrown error answers: refusals as they are, the use cases' own by their kind, anything else a 503 or a 500. */
export function refusalOf(error: unknown, log: (cause: 'unavailable' | 'unstorable' | 'unexpected') => void): ApiError {
  const e = error as { type?: string; status?: number; code?: string } | undefined;
  if (error instanceof ApiError) return error;
  if (error instanceof FieldProblemsError) return invalidInput('body', error.problems);
  if (error instanceof NotFoundError) return notFound(error.kind);
  if (error instanceof ReplayRefused) return new ApiError(409, ApiErrorCodes.CONFLICT, error.message);
  if (error instanceof PartnerChangeRefused) {
    return error.kind === 'rate_limited'
      ? new ApiError(429, ApiErrorCodes.RATE_LIMITED, error.message, error.retryAfterSeconds)
      : new ApiError(409, ApiErrorCodes.CONFLICT, error.message);
  }
  if (e?.type === 'entity.too.large') return new ApiError(413, ApiErrorCodes.VALIDATION, 'the body is too large');
  if (e?.status === 400) return new ApiError(400, ApiErrorCodes.VALIDATION, 'the body is not JSON');
  // body-parser's other refusals of a body (a charset or Content-Encoding it does not take: 415) are the client's.
  const exposed = error as { expose?: boolean; status?: number; message?: string } | undefined;
  if (exposed?.expose && exposed.status && exposed.status >= 400 && exposed.status < 500) {
    return new ApiError(exposed.status, ApiErrorCodes.VALIDATION, exposed.message ?? 'the body is refused');
  }
  if (isUnstorableInput(error)) {
    // A backstop: validation names such a field (storable-values.ts); one it missed is still the request's fault.
    log('unstorable');
    return new ApiError(
      400,
      ApiErrorCodes.VALIDATION,
      'invalid input: a value given cannot be stored (out of range, or a character refused)',
    );
  }
  if ((error instanceof HookstreamError && error.retryable) || isStoreUnavailable(e?.code)) {
    // Kafka or the database away: the same request may succeed in a moment.
    log('unavailable');
    return new ApiError(503, ApiErrorCodes.UNAVAILABLE, 'a store the answer needs is unavailable; retry later', 2);
  }
  log('unexpected');
  return new ApiError(500, ApiErrorCodes.INTERNAL, 'unexpected server error; retry later');
}

/** The methods the API document gives the path a request names (none: no such path). */
function methodsByPath(document: { paths: Record<string, Record<string, unknown>> }): (path: string) => string[] {
  const templates = Object.entries(document.paths).map(([template, operations]) => ({
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    methods: Object.keys(operations).map((m) => m.toUpperCase()),
  }));
  return (path) => templates.find((t) => t.pattern.test(path))?.methods ?? [];
}

/** A connection to PostgreSQL refused, cut or closed by a server shutting down (node errors, SQLSTATE classes 08 and 57P). */
function isStoreUnavailable(code: string | undefined): boolean {
  return code !== undefined && (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code) || /^(08|57P)/.test(code));
}

/**
 * A refusal of a value the request gave, by the store or an Avro record: PostgreSQL's data
 * exceptions (SQLSTATE class 22: a date out of range 22008, a NUL in a text 22021, a number out of
 * range 22003, a malformed value 22P02 …), a record our codec found not to fit its schema, or avsc
 * refusing a value its type cannot hold ('invalid "long": 1.5'). Wrapped ones are found by their cause.
 */
function isUnstorableInput(error: unknown): boolean {
  // Not `instanceof Error`: a driver's errors may come from another realm (a VM context under Jest).
  let e = error as { code?: unknown; message?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code)) return true;
    if (e instanceof AvroInvalidError && Array.isArray(e.details['paths'])) return true;
    if (typeof e.message === 'string' && /^invalid ["{[]/.test(e.message)) return true;
  }
  return false;
}
