/*
 * The one way the delivery log signs and checks its own tokens (portal tokens, console sessions):
 * JWTs with HS256 under the newest key of a key ring (its id in `kid`), any key still listed
 * verifying, each kind of token with an audience of its own so that one is never taken for the
 * other. Keys rotate by listing a new one first and dropping the old one once its tokens expired.
 * Each token carries its id (jti): its row in issued_credentials says whether it still holds.
 */
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { DataKey } from '@hookstream/runtime';

const ISSUER = 'hookstream';

export async function signToken(
  keys: DataKey[],
  audience: string,
  token: { id: string; subject: string; claims?: Record<string, unknown>; issuedAt: Date; expiresAt: Date },
): Promise<string> {
  const [newest] = keys;
  if (!newest) throw new Error(`no key to sign ${audience} tokens`);
  return new SignJWT(token.claims ?? {})
    .setProtectedHeader({ alg: 'HS256', kid: newest.id })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setSubject(token.subject)
    .setJti(token.id)
    .setIssuedAt(Math.floor(token.issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(token.expiresAt.getTime() / 1000))
    .sign(newest.key);
}

/** The claims of a token of `audience` that one of `keys` signed and that has not expired; null for anything else (its row is the caller's to check). */
export async function verifiedToken(
  keys: DataKey[],
  audience: string,
  token: string,
): Promise<(JWTPayload & { sub: string; exp: number; jti: string }) | null> {
  try {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = keys.find((k) => k.id === header.kid);
        if (!key) throw new joseErrors.JWKSNoMatchingKey();
        return key.key;
      },
      { issuer: ISSUER, audience, algorithms: ['HS256'] },
    );
    return typeof payload.sub === 'string' && payload.sub.length > 0 && payload.exp !== undefined && typeof payload.jti === 'string'
      ? (payload as JWTPayload & { sub: string; exp: number; jti: string })
      : null;
  } catch {
    return null;
  }
}
