/**
 * Credentials that end when they are ended, on the real pipeline (support/portal-stack.ts): a
 * console session signed out is refused at the next request; an operator lists a partner's portal
 * tokens and revokes one (it and the session opened with it refused); a partner disabled and
 * enabled again (by the operator API, and by the CLI, which never reaches the store) gets back no
 * token or session issued before, while new ones work; a portal token sees but cannot rotate the
 * key, which the API key still can; a cookie write from another origin is refused.
 */
import { waitFor } from '../../../test/helpers/infrastructure';
import { PortalStack } from './support/portal-stack';

let stack: PortalStack;

beforeAll(async () => {
  stack = await PortalStack.open('revocation', 60);
  // The whole pipeline and a delivery log on a fresh database: a minute or more beside other suites.
}, 180_000);

afterAll(() => stack?.close());

type Session = { cookie: string; csrf: string };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const asSession = (s: Session, extra: Record<string, string> = {}) => ({ cookie: s.cookie, ...extra });

/** Signs in to the console with a partner's API key or a portal token, as the page does. */
async function signIn(credential: { api_key: string } | { portal_token: string }): Promise<Session> {
  const answer = await fetch(`${stack.log.url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credential),
  });
  expect(answer.status).toBe(201);
  const { data } = (await answer.json()) as { data: { csrf_token: string } };
  return { cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: data.csrf_token };
}

const deliveries = async (headers: Record<string, string>) => (await stack.api.get('/api/portal/v1/deliveries', headers)).status;

test('when a console session signs out, then its cookie is refused at the next request (time printed)', async () => {
  const session = await signIn({ api_key: stack.keyA });
  expect(await deliveries(asSession(session))).toBe(200);
  // The cookie as a copy would keep it: sign-out clears it in the browser, not in a copy.
  const signOut = await fetch(`${stack.log.url}/console/session`, {
    method: 'DELETE',
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
  });
  const signedOut = performance.now();
  expect(signOut.status).toBe(204);
  expect(await deliveries(asSession(session))).toBe(401);
  console.log(`sign-out to refusal: ${(performance.now() - signedOut).toFixed(1)} ms (the next request)`);
  const current = (await (await fetch(`${stack.log.url}/console/session`, { headers: { cookie: session.cookie } })).json()) as object;
  expect(current).toEqual({ data: null });
});

test('when an operator revokes a portal token it listed, then the token and the session opened with it are refused', async () => {
  const kept = await stack.portalToken(stack.partnerB);
  const revoked = await stack.portalToken(stack.partnerB);
  const session = await signIn({ portal_token: revoked.token });
  expect([await deliveries(bearer(revoked.token)), await deliveries(asSession(session))]).toEqual([200, 200]);

  const base = `/api/admin/v1/partners/${stack.partnerB}/portal-tokens`;
  const listed = (await stack.api.get(base, stack.asOperator)).json as { data: Array<{ token_id: string; revoked_at: string | null }> };
  expect(listed.data.map((l) => l.token_id)).toEqual(expect.arrayContaining([kept.token_id, revoked.token_id]));
  expect(JSON.stringify(listed)).not.toContain(revoked.token);
  const answer = await stack.api.post(`${base}/${revoked.token_id}/revoke`, stack.asOperator, { reason: 'link posted in a public ticket' });
  expect(answer.json).toMatchObject({ data: { token_id: revoked.token_id, revoke_reason: 'link posted in a public ticket' } });

  expect([await deliveries(bearer(revoked.token)), await deliveries(asSession(session))]).toEqual([401, 401]);
  expect(await deliveries(bearer(kept.token))).toBe(200);
  expect((await stack.api.post(`${base}/nope/revoke`, stack.asOperator, { reason: 'x' })).status).toBe(404);
  const trail = await waitFor(
    async () => {
      const page = (await stack.api.get(`/api/admin/v1/audit?action=portal-token.revoke`, stack.asOperator)).json as {
        data: Array<{ action: string; reason: string; detail: Record<string, unknown> }>;
      };
      return page.data.find((a) => a.action === 'portal-token.revoke');
    },
    'the revocation in the audit trail',
    15_000,
  );
  expect(trail).toMatchObject({ reason: 'link posted in a public ticket', detail: { token_id: revoked.token_id } });
});

test('when a partner is disabled and enabled again (operator API, then CLI), then nothing issued before opens, and new ones do', async () => {
  for (const via of ['operator API', 'CLI'] as const) {
    const token = (await stack.portalToken(stack.partnerC)).token;
    const keySession = await signIn({ api_key: stack.keyC });
    const linkSession = await signIn({ portal_token: token });
    expect(await deliveries(bearer(token))).toBe(200);

    if (via === 'operator API') {
      const path = `/api/admin/v1/partners/${stack.partnerC}`;
      expect((await stack.api.post(`${path}/disable`, stack.asOperator, { reason: 'unpaid invoice' })).status).toBe(200);
      expect((await stack.api.post(`${path}/enable`, stack.asOperator, { reason: 'paid' })).status).toBe(200);
    } else {
      expect((await stack.cli('partners', 'disable', stack.partnerC, '--reason', 'unpaid invoice')).code).toBe(0);
      // The CLI reaches no store: the disable holds through the audit trail the delivery log projects.
      await waitFor(
        async () => {
          const page = (await stack.api.get(`/api/admin/v1/audit?action=partner.disable`, stack.asOperator)).json as {
            data: Array<{ actor_type: string; subject_id: string }>;
          };
          return page.data.some((a) => a.actor_type === 'cli' && a.subject_id === stack.partnerC) || undefined;
        },
        'the CLI disable in the audit trail',
        15_000,
      );
      expect((await stack.cli('partners', 'enable', stack.partnerC, '--reason', 'paid')).code).toBe(0);
    }
    // Enabled again: the API key itself works once more, a new token too (after the enable is read)...
    await waitFor(async () => (await deliveries(stack.asC())) === 200 || undefined, `${via}: the partner enabled again`, 15_000);
    const fresh = (await stack.portalToken(stack.partnerC)).token;
    expect([via, await deliveries(bearer(fresh)), await deliveries(asSession(await signIn({ portal_token: fresh })))]).toEqual([
      via,
      200,
      200,
    ]);
    // ...but what was issued before the disable opens nothing.
    const before = [bearer(token), asSession(keySession), asSession(linkSession)];
    expect([via, ...(await Promise.all(before.map(deliveries)))]).toEqual([via, 401, 401, 401]);
  }
});

test('when a portal token (or a session opened with one) rotates the API key, then 403; with the API key, 201', async () => {
  const { token } = await stack.portalToken(stack.partnerA);
  const linkSession = await signIn({ portal_token: token });
  const rotate = (headers: Record<string, string>) => stack.api.post('/api/portal/v1/api-keys/rotate', headers, { reason: 'test' });

  const byToken = await rotate(bearer(token));
  expect([byToken.status, (byToken.json as { message: string }).message]).toEqual([
    403,
    expect.stringMatching(/portal link cannot rotate/),
  ]);
  expect((await rotate(asSession(linkSession, { 'x-csrf-token': linkSession.csrf }))).status).toBe(403);
  // What a portal token may do, it still does.
  expect(await deliveries(bearer(token))).toBe(200);

  const keySession = await signIn({ api_key: stack.keyA });
  expect((await rotate(asSession(keySession, { 'x-csrf-token': keySession.csrf }))).status).toBe(201);
  expect((await rotate(stack.asA())).status).toBe(201);
});

test('when a cookie write names another origin (Origin, or Referer without it), then 403; from this origin or naming none, it runs', async () => {
  const session = await signIn({ api_key: stack.keyB });
  const own = new URL(stack.log.url).origin;
  const write = (extra: Record<string, string>) =>
    stack.api.post('/api/portal/v1/deliveries/unknown-delivery/resend', asSession(session, { 'x-csrf-token': session.csrf, ...extra }), {});
  const others: Array<Record<string, string>> = [
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { referer: 'https://evil.example/page' },
  ];
  for (const other of others) {
    const refused = await write(other);
    expect([other, refused.status, (refused.json as { message: string }).message]).toEqual([
      other,
      403,
      expect.stringMatching(/own pages/),
    ]);
  }
  // Past both guards, the route runs: no such delivery.
  const sames: Array<Record<string, string>> = [{ origin: own }, { referer: `${own}/console/` }, {}];
  for (const same of sames) expect([same, (await write(same)).status]).toEqual([same, 404]);
  // The same cross-origin write by x-api-key is no cookie write: not refused for its Origin.
  expect(
    (await stack.api.post('/api/portal/v1/deliveries/unknown-delivery/resend', { ...stack.asB(), origin: 'https://evil.example' }, {}))
      .status,
  ).toBe(404);
});
