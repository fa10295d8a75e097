import { createSecretKey, randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import type { OutboundAuth } from '@hookstream/partners';
import type { AuthSecrets } from './reveal-secret';
import { jsonCallback, type SignAttempt } from './signed-callback';
import { ErrorCodes } from '@hookstream/errors';
import { CallbackSigningError } from './signing-error';

type BearerJwtAuth = Extract<OutboundAuth, { method: 'BEARER_JWT' }>;

/**
 * BEARER_JWT (spec 5.1): `Authorization: Bearer <JWT>` signed with the shared secret's UTF-8
 * bytes, a fresh token per attempt: iss = the agreed issuer, iat = the attempt's time,
 * exp = iat + lifetime, jti = a random UUID unless the extra claims set one, plus the extra
 * claims. iss, iat and exp are always ours, whatever the extra claims hold.
 */
export function createBearerJwtSigner(auth: BearerJwtAuth, secrets: AuthSecrets): SignAttempt {
  const key = createSecretKey(Buffer.from(secrets.reveal('secret', auth.secret), 'utf8'));
  const extraClaims = parseExtraClaims(auth.extra_claims_json, secrets.partnerId);
  const { algorithm, issuer, lifetime_seconds } = auth;
  return async ({ body, now }) => {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const jwt = await new SignJWT({ jti: randomUUID(), ...extraClaims })
      .setProtectedHeader({ alg: algorithm, typ: 'JWT' })
      .setIssuer(issuer)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + lifetime_seconds)
      .sign(key);
    return jsonCallback(Buffer.from(body, 'utf8'), { secret: { authorization: `Bearer ${jwt}` } });
  };
}

function parseExtraClaims(json: string | null, partnerId: string): JWTPayload {
  if (json === null) return {};
  let claims: unknown;
  try {
    claims = JSON.parse(json);
  } catch {
    claims = undefined;
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new CallbackSigningError(
      ErrorCodes.SIGNING_CONFIG_INVALID,
      `partner "${partnerId}": outbound_auth.extra_claims_json is not a JSON object`,
      { details: { partnerId, field: 'extra_claims_json' } },
    );
  }
  return claims as JWTPayload;
}
