import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { withTimeout, type Logger } from '@hookstream/runtime';
import { type PartnerDirectory } from '@hookstream/partners';
import { acceptWebhook, type AcceptWebhookDeps } from '../../domain/accept-webhook';
import { payloadFingerprint, validateWebhookPayload } from '../../domain/webhook-payload';
import type { AnswerRecorder } from '../../domain/answer-recorder';
import { RECORDED_STATUSES, rejectionOf, type BodyAsRead, type WebhookRejection } from '../../domain/webhook-rejection';
import { replayOf, type WebhookReplay } from '../../domain/webhook-replay';
import type { IngressMetrics } from '../../metrics';
import { InboundError, InboundErrorCodes, errorBody, responseTo, type ErrorBody } from './responses';

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
 * Refuses bytes that are not UTF-8 instead of turning them into U+FFFD: two bodies differing only
 * in invalid bytes would otherwise be "identical" under one request_id. A byte order mark is kept,
 * so JSON.parse refuses it as before.
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Writes a JSON answer through Node's response directly: express's res.send would also hash the
 * body for an ETag (meaningless on a POST), set the type through its helpers and check freshness:
 * about 3 % of the ingress's CPU profile under load.
 */
function send(res: Response, status: number, body: string | ErrorBody, retryAfterSeconds?: number): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.statusCode = status;
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * Content codings a body may be sent in. zstd is refused although body-parser would decode it:
 * Node marks its zstd as experimental (v22-v24), and the contract names no coding, so the set
 * stays the one published from the start; a coding can be added later without breaking anyone,
 * while one taken away breaks every partner using it.
 */
export const CONTENT_ENCODINGS: readonly string[] = ['identity', 'gzip', 'deflate', 'br'];

/** Sent with a 415 for the coding (RFC 9110 12.5.3), so a client can fall back; identity is always acceptable. */
export const acceptEncodingHeader = CONTENT_ENCODINGS.filter((c) => c !== 'identity').join(', ');

/** The request's content coding as body-parser reads it: the header lower-cased, identity when absent or empty. */
const contentCodingOf = (req: Request) => (req.get('content-encoding') || 'identity').toLowerCase();

function unsupportedEncoding(req: Request, res: Response): InboundError {
  res.setHeader('Accept-Encoding', acceptEncodingHeader);
  const accepted = `${CONTENT_ENCODINGS.slice(0, -1).join(', ')} or ${CONTENT_ENCODINGS.at(-1)}`;
  return new InboundError(
    415,
    InboundErrorCodes.UNSUPPORTED_MEDIA_TYPE,
    `Content-Encoding ${JSON.stringify(req.get('content-encoding') ?? '')} is not supported (${accepted} are)`,
  );
}

/** `application/json`, optionally with charset utf-8 (JSON is UTF-8: RFC 8259). */
function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((p) => !p.startsWith('charset=') || ['charset=utf-8', 'charset=utf8', 'charset="utf-8"'].includes(p));
}

/**
 * POST {base}/api/integration/partner/webhook (spec 4.2), in this order: the API key (401), the
 * content type and coding (415), the body size (413), JSON (400), the fields (400), then idempotency and
 * the durable write. Every answer is the contract's JSON (2.3 or 2.4), never HTML.
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

  const authenticate: RequestHandler = (req, res, next) => {
    res.locals.started = process.hrtime.bigint();
    if (options.draining()) {
      // Another replica takes it: nothing of it was read or written here.
      next(new InboundError(503, InboundErrorCodes.UNAVAILABLE, 'the service is shutting down; retry later', 1));
      return;
    }
    if (!options.partners.ready) {
      // Until partners are loaded a valid key would look unknown: no 401 may be given yet. (The
      // request_id ledger is in PostgreSQL: nothing of it is loaded; a request with a request_id
      // while its store is not open is answered 503 by acceptWebhook.)
      next(new InboundError(503, InboundErrorCodes.UNAVAILABLE, 'the service is starting; retry later', 2));
      return;
    }
    const check = options.partners.checkApiKey(req.get('x-api-key'));
    if (!check.ok) {
      logger.info({ reason: check.reason, partnerId: check.partnerId }, 'webhook refused: API key');
      next(
        new InboundError(
          401,
          InboundErrorCodes.API_KEY,
          check.reason === 'missing' ? 'x-api-key header is missing' : 'x-api-key is not valid',
        ),
      );
      return;
    }
    res.locals.partner = check.partner;
    res.locals.receivedAt = Date.now();
    if (!isJsonContentType(req.get('content-type'))) {
      next(new InboundError(415, InboundErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Content-Type must be application/json'));
      return;
    }
    if (!CONTENT_ENCODINGS.includes(contentCodingOf(req))) {
      // Before the body is read: body-parser would decode more codings than are published.
      next(unsupportedEncoding(req, res));
      return;
    }
    next();
  };

  const handle: RequestHandler = async (req, res, next) => {
    try {
      const partner = res.locals.partner as NonNullable<ReturnType<PartnerDirectory['get']>>;
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      // What is read so far, for the record of a refusal (onError).
      const body: BodyAsRead = {};
      res.locals.body = body;
      let text: string;
      try {
        text = strictUtf8.decode(raw);
      } catch {
        throw new InboundError(400, InboundErrorCodes.VALIDATION, 'the body is not valid UTF-8 (RFC 8259 requires JSON to be UTF-8)');
      }
      body.text = text;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new InboundError(400, InboundErrorCodes.VALIDATION, `the body is not valid JSON: ${(error as Error).message}`);
      }
      body.parsed = parsed;
      const validated = validateWebhookPayload(parsed, text);
      if (!validated.ok) {
        const { problems } = validated;
        throw new InboundError(
          400,
          InboundErrorCodes.VALIDATION,
          problems.map((p) => p.message).join('; '),
          undefined,
          problems.map((p) => p.path),
        );
      }
      res.locals.requestId = validated.payload.request_id;
      const fingerprint = payloadFingerprint(parsed, text);
      body.fingerprint = fingerprint;
      const outcome = await withTimeout(
        acceptWebhook(partner, validated.payload, fingerprint, options.accept),
        options.writeTimeoutMs,
        'write timeout',
      ).catch((error: unknown) => {
        if (error instanceof Error && error.message === 'write timeout') {
          throw new InboundError(503, InboundErrorCodes.UNAVAILABLE, 'the webhook could not be stored durably in time; retry later', 5);
        }
        throw error;
      });
      const answer = responseTo(outcome);
      record(req, res, answer.status, undefined);
      logger.debug({ partnerId: partner.partner_id, requestId: validated.payload.request_id, outcome: outcome.kind }, 'webhook accepted');
      send(res, answer.status, answer.body);
      // After the answer, so it never waits for this: the partner can see its retry was recognised.
      if (outcome.kind === 'replayed') {
        const { webhook } = outcome;
        options.replays.record(partner.partner_id, () =>
          replayOf(partner.partner_id, res.locals.receivedAt as number, webhook, fingerprint),
        );
      }
    } catch (error) {
      next(error);
    }
  };

  router.post(path, authenticate, readBody, handle);
  router.all(path, (_req, _res, next) => next(new InboundError(405, InboundErrorCodes.METHOD_NOT_ALLOWED, 'only POST is allowed here')));
  router.get('/openapi.json', (_req, res) => res.json(options.openapi));

  const record = (_req: Request, res: Response, status: number, errorCode: string | undefined) => {
    const partner = (res.locals.partner as { partner_id?: string } | undefined)?.partner_id ?? 'unknown';
    options.metrics.requests.inc({ partner, status_code: String(status), error_code: errorCode ?? '' });
    const started = res.locals.started as bigint | undefined;
    if (started)
      options.metrics.duration.observe({ partner, status_code: String(status) }, Number(process.hrtime.bigint() - started) / 1e9);
  };

  const notFound: RequestHandler = (_req, _res, next) => next(new InboundError(404, InboundErrorCodes.NOT_FOUND, 'no such resource'));

  /** The one place errors become responses: known outcomes keep their status, anything else is a logged 500. */
  const onError: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    let outcome: InboundError;
    const e = error as { type?: string; status?: number };
    if (error instanceof InboundError) outcome = error;
    else if (e?.type === 'entity.too.large')
      outcome = new InboundError(413, InboundErrorCodes.PAYLOAD_TOO_LARGE, `the body is larger than ${options.bodyLimitBytes} bytes`);
    else if (e?.type === 'encoding.unsupported') outcome = unsupportedEncoding(req, res);
    else if (e?.type === 'request.aborted' || e?.type === 'request.size.invalid' || e?.status === 400) {
      outcome = new InboundError(400, InboundErrorCodes.VALIDATION, 'the body could not be read');
    } else {
      logger.error(
        { err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error), path: req.path },
        'unexpected error',
      );
      outcome = new InboundError(500, InboundErrorCodes.INTERNAL, 'unexpected server error; retry later');
    }
    if (outcome.httpStatus === 405) res.setHeader('Allow', 'POST');
    if (req.path === path) record(req, res, outcome.httpStatus, outcome.errorCode);
    if (outcome.httpStatus >= 400 && outcome.httpStatus !== 401 && outcome.httpStatus !== 404 && req.path === path) {
      const partnerId = (res.locals.partner as { partner_id?: string } | undefined)?.partner_id;
      logger.info(
        { partnerId, requestId: res.locals.requestId as string | undefined, status: outcome.httpStatus, errorCode: outcome.errorCode },
        outcome.message,
      );
    }
    send(res, outcome.httpStatus, errorBody(outcome.httpStatus, outcome.errorCode, outcome.message), outcome.retryAfterSeconds);
    // After the answer, so it never waits for this; only a known partner's (an unknown key's 401 is only counted, above).
    const partner = res.locals.partner as { partner_id: string } | undefined;
    if (partner && req.path === path && RECORDED_STATUSES.has(outcome.httpStatus)) {
      options.rejections.record(partner.partner_id, () =>
        rejectionOf(partner.partner_id, res.locals.receivedAt as number, outcome, res.locals.body as BodyAsRead | undefined),
      );
    }
  };

  return { router, notFound, onError };
}
