/*
 * Who is calling the partner API: a partner, by its inbound API key (x-api-key, exactly as on the
 * webhook), by a portal token an operator issued for it (Authorization: Bearer), or by the
 * console's session cookie (then every write must come from this origin and carry the session's
 * x-csrf-token). Every route
 * after this sees only that partner's rows; anything else answers 401 with the same words whatever
 * the reason, so a caller learns nothing about keys or partners it does not hold; only a session or
 * portal token we issued to a partner since disabled is told so (PARTNER_DISABLED_ERR).
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { PartnerDirectory } from '@hookstream/partners';
import type { Request, RequestHandler } from 'express';
import { csrfMatches, type ConsoleSession, type ConsoleSessions } from '../../../adapters/signing/console-sessions';
import type { PortalTokens } from '../../../adapters/signing/portal-tokens';

import { bearerToken } from './bearer';
import { partnerSessionHolds } from '../../../domain/session-holds';

export interface PartnerCaller {
  partnerId: string;
  /** How it proved who it is: its API key, a portal token, or a console session opened with either. */
  via: 'api_key' | 'portal_token' | 'console';
  /** What it holds underneath: one of the partner's API keys, or only a portal link (which may not mint a key). */
  holds: 'api_key' | 'portal_link';
}

export function authenticatePartner(partners: PartnerDirectory, tokens: PortalTokens, sessions: ConsoleSessions): RequestHandler {
  return (req, res, next) => {
    void (async () => {
      if (!partners.ready)
        throw new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, 'the service is starting; retry later', { retryAfterSeconds: 2 });
      const caller = await callerOf(req, partners, tokens, sessions);
      if (!caller) {
        await refuseDisabledPartner(req, partners, tokens, sessions);
        throw new Refusal(ErrorCodes.INVALID_API_KEY, 'x-api-key or a portal token is missing, unknown, revoked or expired');
      }
      res.locals['caller'] = caller;
    })().then(() => next(), next);
  };
}

async function callerOf(
  req: Request,
  partners: PartnerDirectory,
  tokens: PortalTokens,
  sessions: ConsoleSessions,
): Promise<PartnerCaller | null> {
  const authorization = req.get('authorization');
  const apiKey = req.get('x-api-key');
  if (authorization === undefined && apiKey === undefined) {
    const session = await sessions.read(req.get('cookie'));
    if (session?.kind !== 'partner' || !partnerSessionHolds(session, partners)) return null;
    refuseForgedWrite(req, session);
    return { partnerId: session.partnerId, via: 'console', holds: session.keyId === null ? 'portal_link' : 'api_key' };
  }
  if (authorization !== undefined) {
    const token = bearerToken(authorization);
    const partnerId = token ? (await tokens.verify(token))?.partnerId : undefined;
    // A token of a partner since disabled opens nothing.
    return partnerId && partners.get(partnerId)?.status === 'ACTIVE' ? { partnerId, via: 'portal_token', holds: 'portal_link' } : null;
  }
  const check = partners.checkApiKey(apiKey);
  return check.ok ? { partnerId: check.partner.partner_id, via: 'api_key', holds: 'api_key' } : null;
}

/**
 * A console session or portal token that we issued to a partner the insurer has since disabled is
 * told so (PARTNER_DISABLED_ERR), not just that it no longer opens anything: its holder is that
 * partner (the signature says so), and needs to know to ask the insurer rather than sign in again.
 */
export const PARTNER_DISABLED_MESSAGE =
  'the insurer disabled this partner account: its API keys, portal links and console sessions open nothing until it is enabled again';

async function refuseDisabledPartner(
  req: Request,
  partners: PartnerDirectory,
  tokens: PortalTokens,
  sessions: ConsoleSessions,
): Promise<void> {
  const authorization = req.get('authorization');
  if (req.get('x-api-key') !== undefined) return;
  const token = authorization === undefined ? undefined : bearerToken(authorization);
  const partnerId =
    authorization === undefined ? await sessions.issuedTo(req.get('cookie')) : token ? await tokens.issuedTo(token) : undefined;
  if (partnerId !== undefined && partners.get(partnerId)?.status === 'DISABLED')
    throw new Refusal(ErrorCodes.PARTNER_DISABLED, PARTNER_DISABLED_MESSAGE);
}

/**
 * A write made with a session cookie must come from this server's own pages (Origin, or Referer
 * without it) and carry the session's CSRF value (x-csrf-token): else 403. Two guards beside
 * SameSite=Strict, each enough on its own against a page of another site.
 */
export function refuseForgedWrite(req: Request, session: ConsoleSession): void {
  if (req.method === 'GET' || req.method === 'HEAD') return;
  refuseCrossOrigin(req);
  if (!csrfMatches(session, req.get('x-csrf-token'))) {
    throw new Refusal(ErrorCodes.FORBIDDEN, 'x-csrf-token is missing or not this session’s: reload the console and try again');
  }
}

/**
 * Refuses a request whose Origin (or, without one, Referer) names another origin than the one it
 * was sent to (its Host, or the X-Forwarded-Host a proxy in front of us sets: a page of another
 * site cannot set that header on a credentialed request without a CORS preflight we never grant).
 * Origin "null" (a sandboxed frame, a redirect across sites) is another origin. With neither header
 * the request passes to the CSRF check: browsers send Origin on every cross-origin write (and on
 * same-origin ones), so its absence means a client that is not a browser, which holds no victim's
 * cookie to abuse, and refusing it would break such clients and privacy proxies for nothing.
 */
function refuseCrossOrigin(req: Request): void {
  const claimed = req.get('origin') ?? req.get('referer');
  if (claimed === undefined) return;
  const own = [req.get('x-forwarded-host')?.split(',')[0]?.trim(), req.get('host')].filter(Boolean);
  if (!own.includes(hostOf(claimed))) {
    throw new Refusal(ErrorCodes.FORBIDDEN, 'a write with the session cookie must come from this console’s own pages');
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

/** The partner an authenticated request is from. */
export function partnerCallerOf(locals: Record<string, unknown>): PartnerCaller {
  return locals['caller'] as PartnerCaller;
}
