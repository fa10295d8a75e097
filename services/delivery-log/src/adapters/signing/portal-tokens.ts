/*
 * Portal tokens (portal links): what an operator gives a partner's people to open the portal
 * without the partner's API key. A JWT (HS256) naming the partner, signed with the newest of
 * HOOKSTREAM_PORTAL_TOKEN_KEYS (its id in `kid`), valid for a stated time; any key still listed
 * verifies, so keys rotate by listing a new one first and dropping the old one once its tokens
 * have expired. Each is recorded in issued_credentials, so an operator can list and revoke it.
 */
import type { DataKey } from '@hookstream/runtime';
import type { IssuedCredentials } from '../store/issued-credentials';
import { signToken, verifiedToken } from './signed-tokens';

const AUDIENCE = 'hookstream-portal';
/** The longest a portal token may be issued for. */
export const PORTAL_TOKEN_MAX_SECONDS = 24 * 3600;

export interface IssuedPortalToken {
  token: string;
  id: string;
  expiresAt: Date;
}

export interface PortalTokenClaims {
  id: string;
  partnerId: string;
  expiresAt: Date;
}

export class PortalTokens {
  constructor(
    private readonly keys: DataKey[],
    private readonly issued: Pick<IssuedCredentials, 'record' | 'holds'>,
  ) {}

  /** A token for `partnerId`, issued by `operatorId`; refused past the partner's limit of live links. */
  async issue(partnerId: string, validSeconds: number, operatorId: string, now = new Date()): Promise<IssuedPortalToken> {
    const expiresAt = new Date(now.getTime() + Math.min(validSeconds, PORTAL_TOKEN_MAX_SECONDS) * 1000);
    const id = await this.issued.record({ kind: 'portal_link', partnerId, operatorId, issuedAt: now, expiresAt });
    return { token: await signToken(this.keys, AUDIENCE, { id, subject: partnerId, issuedAt: now, expiresAt }), id, expiresAt };
  }

  /** The claims of a token that holds; null for one malformed, forged, expired, revoked, of before its partner's disable, or signed by a key no longer listed. */
  /** The partner a token was issued to, by its signature and expiry alone (not whether it was revoked since): to tell its holder why it opens nothing. */
  async issuedTo(token: string): Promise<string | undefined> {
    return (await verifiedToken(this.keys, AUDIENCE, token))?.sub;
  }

  async verify(token: string): Promise<PortalTokenClaims | null> {
    const claims = await verifiedToken(this.keys, AUDIENCE, token);
    if (!claims || !(await this.issued.holds(claims.jti))) return null;
    return { id: claims.jti, partnerId: claims.sub, expiresAt: new Date(claims.exp * 1000) };
  }
}
