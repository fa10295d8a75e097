/*
 * The console: its page and assets at /console/ (built with the service, shipped in dist/web, no
 * CDN), the root redirecting there, and the sign-in that turns a partner's API key, a portal
 * link's token or an operator token into a session cookie (console-sessions.ts). Every answer
 * under /console carries a strict Content-Security-Policy: scripts, styles and requests only from
 * this origin, no inline code, no framing.
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import path from 'node:path';
import express, { Router, type Request, type RequestHandler } from 'express';
import { refuseForgedWrite } from './auth/partner-auth';
import { currentSession, refuseUntilReady, signIn, type ConsoleDeps } from '../../domain/console-sign-in';
import { parseInput } from './request-input';
import { SignInBody } from './schemas/console-schemas';
import { ConsoleSessions, type ConsoleSession } from '../../adapters/signing/console-sessions';

export const CONSOLE_BASE = '/console';
/** The built page and its assets (services/delivery-log/console, bundled by its build into dist/web). */
const ASSETS = path.join(__dirname, '..', '..', 'web');

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};

export function consoleRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  router.get('/', (_req, res) => res.redirect(302, `${CONSOLE_BASE}/`));
  router.use(CONSOLE_BASE, securityHeaders);

  // JSON only, and not from another site: a cross-site form (text/plain) cannot sign a victim in as someone else.
  router.post(`${CONSOLE_BASE}/session`, express.json({ limit: '4kb', type: 'application/json' }), async (req, res) => {
    if (req.get('sec-fetch-site') === 'cross-site') throw new Refusal(ErrorCodes.FORBIDDEN, 'sign in from the console itself');
    refuseUntilReady(deps);
    const body = parseInput(SignInBody, req.body ?? {}, 'body');
    const opened = await signIn(deps, body);
    res.setHeader('Set-Cookie', ConsoleSessions.cookie(opened.cookieValue, { secure: overTls(req), expiresAt: opened.session.expiresAt }));
    res.status(201).json({ data: describeSession(opened.session, deps) });
  });

  // Not signed in is an answer, not an error: the page asks on every load.
  router.get(`${CONSOLE_BASE}/session`, async (req, res) => {
    refuseUntilReady(deps);
    const session = await currentSession(deps, req.get('cookie'));
    res.json({ data: session ? describeSession(session, deps) : null });
  });

  router.delete(`${CONSOLE_BASE}/session`, async (req, res) => {
    const session = await currentSession(deps, req.get('cookie'));
    if (session) {
      refuseForgedWrite(req, session);
      // Ended in the store, not only in this browser: a copy of the cookie opens nothing either.
      await deps.sessions.close(session);
    }
    res.setHeader('Set-Cookie', ConsoleSessions.cookie(null, { secure: overTls(req) }));
    res.status(204).end();
  });

  // The script and stylesheet gzipped by the build, to a browser that takes gzip (a third of the bytes).
  router.get([`${CONSOLE_BASE}/app.js`, `${CONSOLE_BASE}/styles.css`], gzipped);
  // The page and its assets; the page's own routes are in its URL's fragment (/console/#/deliveries).
  router.use(CONSOLE_BASE, express.static(ASSETS, { index: 'index.html', fallthrough: true, maxAge: 0 }));
  return router;
}

/** Serves the build's `<asset>.gz` with Content-Encoding gzip when the browser accepts it; otherwise on to the plain file. */
const gzipped: RequestHandler = (req, res, next) => {
  res.vary('Accept-Encoding');
  if (!req.acceptsEncodings('gzip')) return next();
  const asset = path.basename(req.path);
  res.type(path.extname(asset));
  res.set('Content-Encoding', 'gzip');
  res.sendFile(`${asset}.gz`, { root: ASSETS, maxAge: 0 }, (error) => {
    // No .gz built (an older build): the plain file, unless the answer had started.
    if (error && !res.headersSent) {
      res.removeHeader('Content-Encoding');
      next();
    }
  });
};

/**
 * Whether the browser reached us over TLS: directly, or through a proxy that says so in
 * X-Forwarded-Proto. Believing the header is safe here: it can only add Secure to the cookie, and
 * a browser that lied about it just does not get its cookie back over plain HTTP.
 */
function overTls(req: Request): boolean {
  return req.secure || /(^|,)\s*https\s*(,|$)/i.test(req.get('x-forwarded-proto') ?? '');
}

/** What the page needs to know of its session: who, what they may do, the CSRF value for writes, when it ends. */
function describeSession(session: ConsoleSession, deps: ConsoleDeps) {
  const common = { csrf_token: session.csrf, expires_at: session.expiresAt.toISOString() };
  if (session.kind === 'partner') {
    const partner = deps.partners.get(session.partnerId);
    return {
      ...common,
      kind: 'partner' as const,
      partner_id: session.partnerId,
      partner_name: partner?.name ?? session.partnerId,
      // A session opened with a portal link sees and resends but changes no key, endpoint or secret (docs/security.md).
      holds: session.keyId === null ? ('portal_link' as const) : ('api_key' as const),
    };
  }
  const operator = deps.operators.get(session.operatorId)!;
  return {
    ...common,
    kind: 'operator' as const,
    operator_id: operator.operator_id,
    name: operator.name,
    role: operator.role,
    // Operators only: a partner cannot reach the insurer's trace store, and needs no address of it.
    trace_url: deps.traceUrl ?? null,
  };
}
