import { parseKeyring } from '@hookstream/runtime';
import { ConsoleSessions, SESSION_COOKIE, csrfMatches } from '../../src/adapters/signing/console-sessions';
import type { IssuedCredentials, NewCredential } from '../../src/adapters/store/issued-credentials';
import { PortalTokens } from '../../src/adapters/signing/portal-tokens';

const keys = parseKeyring(`k1:${Buffer.alloc(32, 1).toString('base64')}`, 'HOOKSTREAM_PORTAL_TOKEN_KEYS', 32);

/** The store's rows in memory (issued-credentials.int.test.ts holds the real one to the same rules). */
class IssuedInMemory implements Pick<IssuedCredentials, 'record' | 'holds' | 'end' | 'revoke'> {
  private readonly rows = new Map<string, NewCredential & { revoked: boolean }>();
  record(credential: NewCredential): Promise<string> {
    const id = `c${this.rows.size + 1}`;
    this.rows.set(id, { ...credential, revoked: false });
    return Promise.resolve(id);
  }
  holds(id: string | undefined, now = new Date()): Promise<boolean> {
    const row = id === undefined ? undefined : this.rows.get(id);
    return Promise.resolve(row !== undefined && !row.revoked && row.expiresAt > now);
  }
  end(id: string): Promise<void> {
    this.rows.delete(id);
    return Promise.resolve();
  }
  revoke(id: string, _by?: unknown): Promise<boolean> {
    const ended = [...this.rows].filter(([key, row]) => (key === id || row.portalLinkId === id) && !row.revoked);
    for (const [, row] of ended) row.revoked = true;
    return Promise.resolve(ended.length > 0);
  }
}
const issued = new IssuedInMemory();
const sessions = new ConsoleSessions(keys, issued);
const cookieOf = (value: string) => `other=1; ${SESSION_COOKIE}=${value}`;

test('a session opened for a partner reads back as that partner, with its key and a CSRF value', async () => {
  const { session, cookieValue } = await sessions.open({ kind: 'partner', partnerId: 'acme', keyId: 'key_1' });
  expect(await sessions.read(cookieOf(cookieValue))).toEqual(session);
  expect(session).toMatchObject({ kind: 'partner', partnerId: 'acme', keyId: 'key_1' });
  expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);
  expect(cookieValue).not.toContain('key_1'.repeat(2));
});

test('a session ends after 8 hours, or with the portal token it was opened with', async () => {
  const now = new Date('2026-01-01T10:00:00Z');
  const long = await sessions.open({ kind: 'operator', operatorId: 'op_1' }, undefined, now);
  expect(long.session.expiresAt.toISOString()).toBe('2026-01-01T18:00:00.000Z');
  const link = await new PortalTokens(keys, issued).issue('acme', 1800, 'op_1', now);
  const short = await sessions.open({ kind: 'partner', partnerId: 'acme', keyId: null, portalLinkId: link.id }, link.expiresAt, now);
  expect(short.session.expiresAt.toISOString()).toBe('2026-01-01T10:30:00.000Z');
  // Opened in January for half an hour: long expired.
  expect(await sessions.read(cookieOf(short.cookieValue))).toBeUndefined();
});

test('a tampered cookie, another key’s, or a portal token in its place is no session', async () => {
  const { cookieValue } = await sessions.open({ kind: 'operator', operatorId: 'op_1' });
  const [header, payload, signature] = cookieValue.split('.');
  const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'op_2' })).toString(
    'base64url',
  );
  expect(await sessions.read(cookieOf(`${header}.${forgedPayload}.${signature}`))).toBeUndefined();
  const otherKeys = new ConsoleSessions(parseKeyring(`k1:${Buffer.alloc(32, 2).toString('base64')}`, 'k', 32), issued);
  expect(await otherKeys.read(cookieOf(cookieValue))).toBeUndefined();
  const portal = await new PortalTokens(keys, issued).issue('acme', 300, 'op_1');
  expect(await sessions.read(cookieOf(portal.token))).toBeUndefined();
  expect(await sessions.read(undefined)).toBeUndefined();
  expect(await sessions.read('unrelated=1')).toBeUndefined();
});

test('the cookie is HttpOnly and SameSite=Strict, Secure over TLS, and cleared on sign-out', () => {
  const set = ConsoleSessions.cookie('v', { secure: true, expiresAt: new Date('2026-11-25T18:00:00Z') });
  expect(set).toMatch(/HttpOnly/);
  expect(set).toMatch(/SameSite=Strict/);
  expect(set).toMatch(/Secure/);
  expect(ConsoleSessions.cookie('v', { secure: false })).not.toMatch(/Secure/);
  expect(ConsoleSessions.cookie(null, { secure: false })).toMatch(/Max-Age=0/);
});

test('a write carries the session’s CSRF value, compared exactly', async () => {
  const { session } = await sessions.open({ kind: 'operator', operatorId: 'op_1' });
  expect(csrfMatches(session, session.csrf)).toBe(true);
  expect(csrfMatches(session, `${session.csrf}x`)).toBe(false);
  expect(csrfMatches(session, undefined)).toBe(false);
  expect(csrfMatches(session, '')).toBe(false);
});

test('a session signed out, or opened with a portal link since revoked, reads as none though its signature holds', async () => {
  const { session, cookieValue } = await sessions.open({ kind: 'operator', operatorId: 'op_1' });
  await sessions.close(session);
  expect(await sessions.read(cookieOf(cookieValue))).toBeUndefined();

  const link = await new PortalTokens(keys, issued).issue('acme', 300, 'op_1');
  const opened = await sessions.open({ kind: 'partner', partnerId: 'acme', keyId: null, portalLinkId: link.id });
  expect(await sessions.read(cookieOf(opened.cookieValue))).toEqual(opened.session);
  expect(await issued.revoke(link.id, { actor: 'op_2', reason: 'left the partner' })).toBe(true);
  expect(await sessions.read(cookieOf(opened.cookieValue))).toBeUndefined();
  expect(await new PortalTokens(keys, issued).verify(link.token)).toBeNull();
});
