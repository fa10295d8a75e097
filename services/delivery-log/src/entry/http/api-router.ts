/*
 * The delivery log's HTTP surface: the partner API under /api/portal/v1, the operator API under
 * /api/admin/v1, the console under /console/, /openapi.json, and the one place where refusals and failures become answers (the
 * inbound contract's error body; a 500 says nothing of its cause, which is logged).
 */
import { ErrorCodes, hasErrorCode, HookstreamError, Refusal, type ErrorCode, type FieldProblem } from '@hookstream/errors';
import { type OperatorDirectory, type PartnerDirectory } from '@hookstream/partners';
import { isStoreUnavailable, type Logger } from '@hookstream/runtime';
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { DeliveryLogDb } from '../../adapters/store/tables';
import { adminDlqRoutes } from './admin-dlq-routes';
import { adminPartnerRoutes, type AdminPartnerDeps } from './admin-partner-routes';
import { adminSearchRoutes } from './admin-search-routes';
import { adminNotificationRoutes } from './admin-notification-routes';
import { adminRetryRoutes } from './retry-routes';
import { deliveryLogOpenApi } from './openapi/openapi';
import { authenticateOperator } from './auth/operator-auth';
import { authenticatePartner } from './auth/partner-auth';
import { ADMIN_BASE, PORTAL_BASE } from './paths';
import { partnerRateLimit } from './auth/partner-rate-limit';
import { invalidInput, notFound, refusalBody } from './refusals';
import { portalRoutes, type PortalDeps } from './portal-routes';
import type { IssuedCredentials } from '../../adapters/store/issued-credentials';
import type { PortalTokens } from '../../adapters/signing/portal-tokens';
import { consoleRoutes } from './console-routes';
import type { ConsoleSessions } from '../../adapters/signing/console-sessions';
import type { DeadLetterSessions } from '../../adapters/kafka/dead-letter-sessions';
import type { ReplayLanes } from '../../adapters/kafka/replay-lanes';
import type { DeliveryRetrier } from '../../domain/retry-delivery';

export interface ApiOptions extends PortalDeps, Omit<AdminPartnerDeps, 'partners'> {
  /** The operator API's and the console's store (the partner API has none: PortalDeps.forPartner). */
  db: DeliveryLogDb;
  /** An operator's retry now (any partner's delivery). */
  retrier: DeliveryRetrier;
  partners: PartnerDirectory;
  operators: OperatorDirectory;
  portalTokens: PortalTokens;
  issuedCredentials: IssuedCredentials;
  sessions: ConsoleSessions;
  deadLetters: DeadLetterSessions;
  lanes: ReplayLanes;
  logger: Logger;
  draining: () => boolean;
  /** Requests one partner may make to this replica per second (partner-rate-limit.ts). */
  partnerRequestsPerSecond: number;
  /** An operator's link to one trace (DELIVERY_LOG_TRACE_URL). */
  traceUrl?: string | undefined;
}

export function apiRouter(options: ApiOptions): { router: Router; notFound: RequestHandler; onError: ErrorRequestHandler } {
  const logger = options.logger.child({ module: 'api' });
  const router = Router();
  const openapi = deliveryLogOpenApi();
  router.get('/openapi.json', (_req, res) => res.json(openapi));
  const unlessDraining: RequestHandler = (_req, _res, next) => {
    next(
      options.draining()
        ? new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, 'the service is shutting down; retry later', { retryAfterSeconds: 1 })
        : undefined,
    );
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
    adminSearchRoutes(options.db, options.retryDelaysMs),
    adminRetryRoutes(options.retrier),
    adminPartnerRoutes(options),
    adminNotificationRoutes(options),
    adminDlqRoutes(options.deadLetters, options.lanes),
  );

  const allowedMethods = methodsByPath(openapi as { paths: Record<string, Record<string, unknown>> });
  const notFoundHere: RequestHandler = (req, res, next) => {
    const allowed = allowedMethods(req.path);
    if (allowed.length === 0) {
      next(new Refusal(ErrorCodes.NOT_FOUND, 'no such resource'));
      return;
    }
    res.setHeader('Allow', allowed.join(', '));
    next(new Refusal(ErrorCodes.METHOD_NOT_ALLOWED, `${req.method} is not allowed here; ${allowed.join(', ')} is`));
  };

  return { router, notFound: notFoundHere, onError: answerOfError(logger) };
}

/** The one place where refusals and failures become answers: the status, Retry-After and the error body. */
export function answerOfError(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
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
    res.status(refusal.httpStatus).json(refusalBody(refusal));
  };
}

/** The codes of the input refusals naming each problem by field (FieldProblemsError's kinds) a route may meet. */
const FIELD_PROBLEM_CODES: readonly ErrorCode[] = [
  ErrorCodes.PARTNER_SPEC_INVALID,
  ErrorCodes.OPERATOR_INPUT_INVALID,
  ErrorCodes.POLICY_EVENT_INVALID,
];

/**
 * What a thrown error answers: refusals as they are, other packages' errors by their code (a
 * class may come from another copy of its package), anything else a 400, a 503 or a 500.
 */
export function refusalOf(error: unknown, log: (cause: 'unavailable' | 'unstorable' | 'unexpected') => void): Refusal {
  const e = error as
    | {
        type?: string;
        status?: number;
        code?: string;
        kind?: string;
        retryAfterSeconds?: number;
        message?: string;
        problems?: FieldProblem[];
      }
    | undefined;
  if (error instanceof Refusal) return error;
  if (FIELD_PROBLEM_CODES.some((code) => hasErrorCode(error, code))) return invalidInput('body', e?.problems ?? []);
  if (hasErrorCode(error, ErrorCodes.ENTITY_NOT_FOUND)) return notFound(e?.kind ?? 'such thing');
  // ReplayRefused (@hookstream/dead-letters): an operator's replay refused as a whole.
  if (hasErrorCode(error, ErrorCodes.REPLAY_REFUSED)) return new Refusal(ErrorCodes.CONFLICT, e?.message ?? 'refused');
  if (hasErrorCode(error, ErrorCodes.PARTNER_CHANGE_REFUSED)) {
    if (e?.kind === 'forbidden') return new Refusal(ErrorCodes.FORBIDDEN, e.message ?? 'refused');
    return e?.kind === 'rate_limited'
      ? new Refusal(ErrorCodes.TOO_MANY_REQUESTS, e.message ?? 'refused', { retryAfterSeconds: e.retryAfterSeconds })
      : new Refusal(ErrorCodes.CONFLICT, e?.message ?? 'refused');
  }
  if (e?.type === 'entity.too.large') return new Refusal(ErrorCodes.INVALID_PAYLOAD, 'the body is too large', { httpStatus: 413 });
  if (e?.status === 400) return new Refusal(ErrorCodes.INVALID_PAYLOAD, 'the body is not JSON');
  // body-parser's other refusals of a body (a charset or Content-Encoding it does not take: 415) are the client's.
  const exposed = error as { expose?: boolean; status?: number; message?: string } | undefined;
  if (exposed?.expose && exposed.status && exposed.status >= 400 && exposed.status < 500) {
    return new Refusal(ErrorCodes.INVALID_PAYLOAD, exposed.message ?? 'the body is refused', { httpStatus: exposed.status });
  }
  if (isUnstorableInput(error)) {
    // A backstop: validation names such a field (storable-values.ts); one it missed is still the request's fault.
    log('unstorable');
    return new Refusal(ErrorCodes.INVALID_PAYLOAD, 'invalid input: a value given cannot be stored (out of range, or a character refused)');
  }
  if ((error instanceof HookstreamError && error.retryable) || isStoreUnavailable(error)) {
    // Kafka or the database away: the same request may succeed in a moment.
    log('unavailable');
    return new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, 'a store the answer needs is unavailable; retry later', { retryAfterSeconds: 2 });
  }
  log('unexpected');
  return new Refusal(ErrorCodes.INTERNAL, 'unexpected server error; retry later');
}

/** The methods the API document gives the path a request names (none: no such path). */
function methodsByPath(document: { paths: Record<string, Record<string, unknown>> }): (path: string) => string[] {
  const templates = Object.entries(document.paths).map(([template, operations]) => ({
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    methods: Object.keys(operations).map((m) => m.toUpperCase()),
  }));
  return (path) => templates.find((t) => t.pattern.test(path))?.methods ?? [];
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
    if (hasErrorCode(e, ErrorCodes.AVRO_INVALID) && Array.isArray((e as { details?: Record<string, unknown> }).details?.['paths']))
      return true;
    if (typeof e.message === 'string' && /^invalid ["{[]/.test(e.message)) return true;
  }
  return false;
}
