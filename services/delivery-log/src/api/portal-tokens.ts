/*
 * Portal tokens: what an operator gives a partner's people to open the portal without the
 * partner's API key. A JWT (HS256) naming the partner, signed with the newest of
 * HOOKSTREAM_PORTAL_TOKEN_KEYS (its id in `kid`), valid for a stated time; any key still listed
 * verifies, so keys rotate by listing a new one first and dropping the old one once its tokens
 * have expired.
 */
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { DataKey } from '@hookstream/shared';

const ISSUER = 'hookstream';
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
    const [newest] = this.keys;
    if (!newest) throw new Error('no portal token key');
    const expiresAt = new Date(now.getTime() + Math.min(validSeconds, PORTAL_TOKEN_MAX_SECONDS) * 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', kid: newest.id })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(partnerId)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(newest.key);
    return { token, expiresAt };
  }

  /** The partner id a valid token names; null for a token that is malformed, forged, expired, or signed by a key no longer listed. */
  async partnerOf(token: string): Promise<string | null> {
    return (await this.verify(token))?.partnerId ?? null;
  }

  /** The partner a valid token names and when it expires; null as partnerOf. */
  async verify(token: string): Promise<{ partnerId: string; expiresAt: Date } | null> {
    try {
      const { payload } = await jwtVerify(
        token,
        (header) => {
          const key = this.keys.find((k) => k.id === header.kid);
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key.key;
        },
        { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] },
      );
      if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.exp === undefined) return null;
      return { partnerId: payload.sub, expiresAt: new Date(payload.exp * 1000) };
    } catch {
      return null;
    }
  }
}
