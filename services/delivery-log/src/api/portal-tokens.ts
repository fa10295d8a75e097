/*
 * Portal tokens: what an operator gives a partner's people to open the portal without the
 * partner's API key. A JWT (HS256) naming the partner, signed with the newest of
 * HOOKSTREAM_PORTAL_TOKEN_KEYS (its id in `kid`), valid for a stated time; any key still listed
 * verifies, so keys rotate by listing a new one first and dropping the old one once its tokens
 * have expired.
 */
import type { DataKey } from '@hookstream/shared';
import { signToken, verifiedToken } from './signed-tokens';

const AUDIENCE = 'hookstream-portal';
/** The longest a portal token may be issued for. */
export const PORTAL_TOKEN_MAX_SECONDS = 24 * 3600;

export interface IssuedPortalToken {
  token: string;
  expiresAt: Date;
}

export class PortalTokens {
  constructor(private readonly keys: DataKey[]) {}

  async issue(partnerId: string, validSeconds: number, now = new Date()): Promise<IssuedPortalToken> {
    const expiresAt = new Date(now.getTime() + Math.min(validSeconds, PORTAL_TOKEN_MAX_SECONDS) * 1000);
    return { token: await signToken(this.keys, AUDIENCE, { subject: partnerId, issuedAt: now, expiresAt }), expiresAt };
  }

  /** The partner id a valid token names; null for a token that is malformed, forged, expired, or signed by a key no longer listed. */
  async partnerOf(token: string): Promise<string | null> {
    return (await this.verify(token))?.partnerId ?? null;
  }

  /** The partner a valid token names and when it expires; null as partnerOf. */
  async verify(token: string): Promise<{ partnerId: string; expiresAt: Date } | null> {
    const claims = await verifiedToken(this.keys, AUDIENCE, token);
    return claims ? { partnerId: claims.sub, expiresAt: new Date(claims.exp * 1000) } : null;
  }
}
