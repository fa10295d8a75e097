/*
 * Console sessions: once a person signs in to the console (with a partner's API key, a portal
 * link's token or an operator token), the browser holds only a session cookie: a short-lived JWT
 * (HS256, the newest of HOOKSTREAM_PORTAL_TOKEN_KEYS, audience hookstream-console so a portal
 * token is never taken for a session or the other way round) naming who signed in and carrying a
 * random CSRF value. The cookie is HttpOnly, SameSite=Strict and Secure over TLS; the CSRF value
 * is handed to the page, which sends it back in x-csrf-token on every write. The credential
 * itself is never kept: each request re-checks that what it named still holds (the key not
 * revoked, the partner active, the operator not revoked).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { DataKey } from '@hookstream/shared';

export const SESSION_COOKIE = 'hookstream_session';
const ISSUER = 'hookstream';
const AUDIENCE = 'hookstream-console';
/** A working day: long enough not to interrupt one, short enough that a forgotten laptop's session ends. */
export const SESSION_SECONDS = 8 * 3600;

export type ConsoleSession =
  | { kind: 'partner'; partnerId: string; keyId: string | null; csrf: string; expiresAt: Date }
  | { kind: 'operator'; operatorId: string; csrf: string; expiresAt: Date };

type NewSession = { kind: 'partner'; partnerId: string; keyId: string | null } | { kind: 'operator'; operatorId: string };

export class ConsoleSessions {
  constructor(private readonly keys: DataKey[]) {}

  /** A session for `who`, ending at `notAfter` if that is sooner than SESSION_SECONDS (a portal token's expiry). */
  async open(who: NewSession, notAfter?: Date, now = new Date()): Promise<{ session: ConsoleSession; cookieValue: string }> {
    const [newest] = this.keys;
    if (!newest) throw new Error('no key to sign console sessions');
    const end = Math.min(now.getTime() + SESSION_SECONDS * 1000, notAfter?.getTime() ?? Infinity);
    const csrf = randomBytes(24).toString('base64url');
    const subject = who.kind === 'partner' ? who.partnerId : who.operatorId;
    const cookieValue = await new SignJWT({
      kind: who.kind,
      csrf,
      ...(who.kind === 'partner' && who.keyId ? { api_key_id: who.keyId } : {}),
    })
      .setProtectedHeader({ alg: 'HS256', kid: newest.id })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(subject)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(end / 1000))
      .sign(newest.key);
    const expiresAt = new Date(Math.floor(end / 1000) * 1000);
    const session: ConsoleSession =
      who.kind === 'partner'
        ? { kind: 'partner', partnerId: who.partnerId, keyId: who.keyId, csrf, expiresAt }
        : { kind: 'operator', operatorId: who.operatorId, csrf, expiresAt };
    return { session, cookieValue };
  }

  /** The session a request's Cookie header carries, if it is one of ours and current. */
  async read(cookieHeader: string | undefined): Promise<ConsoleSession | undefined> {
    const token = cookieHeader ? parseCookies(cookieHeader)[SESSION_COOKIE] : undefined;
    if (!token) return undefined;
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
      const { sub, csrf, kind, exp } = payload as { sub?: unknown; csrf?: unknown; kind?: unknown; exp?: number };
      if (typeof sub !== 'string' || typeof csrf !== 'string' || exp === undefined) return undefined;
      const expiresAt = new Date(exp * 1000);
      if (kind === 'operator') return { kind, operatorId: sub, csrf, expiresAt };
      if (kind === 'partner')
        return { kind, partnerId: sub, keyId: typeof payload['api_key_id'] === 'string' ? payload['api_key_id'] : null, csrf, expiresAt };
      return undefined;
    } catch {
      return undefined;
    }
  }

  /** The Set-Cookie value of a session (or of its removal: no value). */
  static cookie(value: string | null, options: { secure: boolean; expiresAt?: Date }): string {
    return serializeCookie(SESSION_COOKIE, value ?? '', {
      httpOnly: true,
      sameSite: 'strict',
      secure: options.secure,
      path: '/',
      ...(value === null ? { maxAge: 0 } : options.expiresAt ? { expires: options.expiresAt } : {}),
    });
  }
}

/** Whether a write carries the session's CSRF value (compared in constant time). */
export function csrfMatches(session: ConsoleSession, presented: string | undefined): boolean {
  if (!presented) return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
