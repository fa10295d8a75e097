/*
 * Console sessions: once a person signs in to the console (with a partner's API key, a portal
 * link's token or an operator token), the browser holds only a session cookie: a short-lived JWT
 * (HS256, the newest of HOOKSTREAM_PORTAL_TOKEN_KEYS, audience hookstream-console so a portal
 * token is never taken for a session or the other way round) naming who signed in and carrying a
 * random CSRF value. The cookie is HttpOnly, SameSite=Strict and Secure over TLS; the CSRF value
 * is handed to the page, which sends it back in x-csrf-token on every write. The credential
 * itself is never kept: each request re-checks that what it named still holds (the key not
 * revoked, the partner active, the operator not revoked), and that the session's own row in
 * issued_credentials does (not signed out, not revoked with its portal link or its partner).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { DataKey } from '@hookstream/runtime';
import type { IssuedCredentials } from '../store/issued-credentials';
import { signToken, verifiedToken } from './signed-tokens';

export const SESSION_COOKIE = 'hookstream_session';
const AUDIENCE = 'hookstream-console';
/** A working day: long enough not to interrupt one, short enough that a forgotten laptop's session ends. */
export const SESSION_SECONDS = 8 * 3600;

/** A partner's session was opened with one of its API keys (keyId) or with a portal link (keyId null). */
export type ConsoleSession =
  | { id: string; kind: 'partner'; partnerId: string; keyId: string | null; csrf: string; expiresAt: Date }
  | { id: string; kind: 'operator'; operatorId: string; csrf: string; expiresAt: Date };

type NewSession =
  | { kind: 'partner'; partnerId: string; keyId: string; portalLinkId?: undefined }
  | { kind: 'partner'; partnerId: string; keyId: null; portalLinkId: string }
  | { kind: 'operator'; operatorId: string };

export class ConsoleSessions {
  constructor(
    private readonly keys: DataKey[],
    private readonly issued: Pick<IssuedCredentials, 'record' | 'holds' | 'end'>,
  ) {}

  /** A session for `who`, ending at `notAfter` if that is sooner than SESSION_SECONDS (a portal token's expiry). */
  async open(who: NewSession, notAfter?: Date, now = new Date()): Promise<{ session: ConsoleSession; cookieValue: string }> {
    const end = Math.min(now.getTime() + SESSION_SECONDS * 1000, notAfter?.getTime() ?? Infinity);
    const expiresAt = new Date(Math.floor(end / 1000) * 1000);
    const partnerId = who.kind === 'partner' ? who.partnerId : null;
    const id = await this.issued.record({
      kind: 'console_session',
      partnerId,
      operatorId: who.kind === 'operator' ? who.operatorId : null,
      portalLinkId: who.kind === 'partner' ? (who.portalLinkId ?? null) : null,
      issuedAt: now,
      expiresAt,
    });
    const csrf = randomBytes(24).toString('base64url');
    const subject = who.kind === 'partner' ? who.partnerId : who.operatorId;
    const claims = { kind: who.kind, csrf, ...(who.kind === 'partner' && who.keyId ? { api_key_id: who.keyId } : {}) };
    const cookieValue = await signToken(this.keys, AUDIENCE, { id, subject, claims, issuedAt: now, expiresAt: new Date(end) });
    const session: ConsoleSession =
      who.kind === 'partner'
        ? { id, kind: 'partner', partnerId: who.partnerId, keyId: who.keyId, csrf, expiresAt }
        : { id, kind: 'operator', operatorId: who.operatorId, csrf, expiresAt };
    return { session, cookieValue };
  }

  /** Signs a session out: its row is deleted, so its cookie opens nothing on any replica from the next request. */
  async close(session: ConsoleSession): Promise<void> {
    await this.issued.end(session.id);
  }

  /** The session a request's Cookie header carries, if it is one of ours and current. */
  async read(cookieHeader: string | undefined): Promise<ConsoleSession | undefined> {
    const token = cookieHeader ? parseCookies(cookieHeader)[SESSION_COOKIE] : undefined;
    if (!token) return undefined;
    const payload = await verifiedToken(this.keys, AUDIENCE, token);
    if (!payload || typeof payload['csrf'] !== 'string') return undefined;
    const { sub, exp, kind, jti: id } = payload;
    if ((kind !== 'operator' && kind !== 'partner') || !(await this.issued.holds(id))) return undefined;
    const csrf = payload['csrf'];
    const expiresAt = new Date(exp * 1000);
    if (kind === 'operator') return { id, kind, operatorId: sub, csrf, expiresAt };
    return { id, kind, partnerId: sub, keyId: typeof payload['api_key_id'] === 'string' ? payload['api_key_id'] : null, csrf, expiresAt };
  }

  /**
   * The partner a session cookie was issued to, by its signature and expiry alone (not whether it
   * was ended since): to tell its holder why it no longer opens anything.
   */
  async issuedTo(cookieHeader: string | undefined): Promise<string | undefined> {
    const token = cookieHeader ? parseCookies(cookieHeader)[SESSION_COOKIE] : undefined;
    const payload = token ? await verifiedToken(this.keys, AUDIENCE, token) : undefined;
    return payload?.kind === 'partner' && typeof payload.sub === 'string' ? payload.sub : undefined;
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
