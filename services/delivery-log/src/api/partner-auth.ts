/*
 * Who is calling the partner API: a partner, by its inbound API key (x-api-key, exactly as on the
 * webhook) or by a portal token an operator issued for it (Authorization: Bearer). Every route
 * after this sees only that partner's rows; anything else answers 401 with the same words whatever
 * the reason, so a caller learns nothing about keys or partners it does not hold.
 */
import type { PartnerDirectory } from '@hookstream/shared';
import type { RequestHandler } from 'express';
import { ApiError, ApiErrorCodes } from './api-errors';
import type { PortalTokens } from './portal-tokens';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

export interface PartnerCaller {
  partnerId: string;
  /** How it proved who it is: its API key, or a portal token. */
  via: 'api_key' | 'portal_token';
}

export function authenticatePartner(partners: PartnerDirectory, tokens: PortalTokens): RequestHandler {
  return (req, res, next) => {
    void (async () => {
      if (!partners.ready) throw new ApiError(503, ApiErrorCodes.UNAVAILABLE, 'the service is starting; retry later', 2);
      const caller = await callerOf(req.get('authorization'), req.get('x-api-key'), partners, tokens);
      if (!caller)
        throw new ApiError(401, ApiErrorCodes.UNAUTHENTICATED, 'x-api-key or a portal token is missing, unknown, revoked or expired');
      res.locals['caller'] = caller;
    })().then(() => next(), next);
  };
}

async function callerOf(
  authorization: string | undefined,
  apiKey: string | undefined,
  partners: PartnerDirectory,
  tokens: PortalTokens,
): Promise<PartnerCaller | null> {
  if (authorization !== undefined) {
    const token = BEARER.exec(authorization)?.[1];
    const partnerId = token ? await tokens.partnerOf(token) : null;
    // A token of a partner since disabled opens nothing.
    return partnerId && partners.get(partnerId)?.status === 'ACTIVE' ? { partnerId, via: 'portal_token' } : null;
  }
  const check = partners.checkApiKey(apiKey);
  return check.ok ? { partnerId: check.partner.partner_id, via: 'api_key' } : null;
}

/** The partner an authenticated request is from. */
export function partnerCallerOf(locals: Record<string, unknown>): PartnerCaller {
  return locals['caller'] as PartnerCaller;
}
