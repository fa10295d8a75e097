/**
 * The operator API on a PostgreSQL database of its own, fed by the real pipeline, with operator tokens made by
 * `hookstream operators create`: a viewer reads but cannot write (every write route of the spec
 * walked); an operator onboards a partner with the CLI's own validation and answers, rotates its
 * key, disables it, issues it a portal token, finds a dead letter across partners and replays it
 * after a dry run; every write is in the audit trail with who and why; a revoked token opens nothing.
 */
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, policyEvent, startService, type Receiver, type RunningService } from '../../../test/helpers/outbound';
import { postWebhook, webhook, type RunningIngress } from '../../../test/helpers/ingress';
import { waitFor } from '../../../test/helpers/infrastructure';
import { runCli } from '../../../test/helpers/processes';
import { ApiClient } from './support/api-client';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';

let fixture: OutboundFixture;
let api: ApiClient;
let logDatabase: StateDatabase | undefined;
let ingress: RunningIngress;
let log: RunningService;
let failing: Receiver;
const failingPartner = uniquePartnerId('admin-failing');
let asViewer: Record<string, string>;
let asOperator: Record<string, string>;
let operatorId: string;

const cli = async (...args: string[]) => {
  // The stack's settings are in this process's environment (stack exec), the fixture's on top.
  const result = await runCli(args, { env: { ...process.env, ...fixture.env, TOPIC_PREFIX: fixture.prefix } });
  return { ...result, json: () => JSON.parse(result.stdout) as Record<string, unknown> };
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
type Page<T> = { data: T[]; next_cursor: string | null };

beforeAll(async () => {
  fixture = await OutboundFixture.open('admin-api', { retryDelaysMs: retryTierDelays(50), breaker: { failures: 1000, openMs: 100 } });
  failing = await fixture.receiver((_request, index) => (index < 9 ? 503 : 200));
  await fixture.onboard(failingPartner, { endpoint_id: 'main', url: failing.url });
  const [viewer, operator] = await Promise.all([
    cli('operators', 'create', '--name', 'Vera Viewer', '--role', 'viewer', '--json'),
    cli('operators', 'create', '--name', 'Otto Operator', '--role', 'operator', '--reason', 'on call this week', '--json'),
  ]);
  expect([viewer.code, operator.code, viewer.stderr, operator.stderr]).toEqual([0, 0, '', '']);
  asViewer = bearer(viewer.json()['token'] as string);
  asOperator = bearer(operator.json()['token'] as string);
  operatorId = operator.json()['operator_id'] as string;
  logDatabase = await freshStateDatabase();
  const started = await Promise.all([
    fixture.startIngress(),
    startService(DELIVERY_LOG_ENTRY, fixture.prefix, { ...fixture.env, DELIVERY_LOG_DATABASE_URL: logDatabase.url, HTTP_PORT: '0' }),
    fixture.startConsumer(),
    fixture.startSender(),
  ]);
  [ingress, log] = started;
  await fixture.events.publish([policyEvent(failingPartner, {}, { policy_number: 'P-ADMIN-1' })]);
  api = await ApiClient.open(log.url);
  // The whole pipeline and a delivery log on a fresh database: a minute or more beside other suites.
}, 180_000);

afterAll(async () => {
  await log?.stop();
  await fixture?.close();
  await logDatabase?.drop();
  await stopStateServer();
});

test('a viewer reads, and every write of the spec answers it 403 and changes nothing', async () => {
  const me = await api.get('/api/admin/v1/me', asViewer);
  expect(me.json).toMatchObject({ data: { name: 'Vera Viewer', role: 'viewer' } });
  expect((await api.get('/api/admin/v1/partners', asViewer)).status).toBe(200);
  const writes = Object.entries(api.openapi.paths)
    .filter(([route]) => route.startsWith('/api/admin/v1/'))
    .flatMap(([route, methods]) =>
      Object.keys(methods)
        .filter((m) => m !== 'get')
        .map((method) => ({ route, method })),
    );
  expect(writes.length).toBeGreaterThanOrEqual(8);
  for (const { route, method } of writes) {
    const url = route.replace(/\{partnerId\}/, failingPartner).replace(/\{[^}]+\}/g, 'x');
    const answer = await api.send(method, url, asViewer, { reason: 'trying', partner: { name: 'Nope' }, changes: { name: 'Nope' } });
    expect([method, url, answer.status, (answer.json as { error_code: string }).error_code]).toEqual([method, url, 403, 'FORBIDDEN_ERR']);
  }
  const partner = (await api.get(`/api/admin/v1/partners/${failingPartner}`, asViewer)).json as { data: { revision: number } };
  expect(partner.data.revision).toBe(1);
});

test('an operator onboards a partner with the CLI’s validation, and the CLI and the API show it alike', async () => {
  const spec = {
    partner_id: uniquePartnerId('admin-new'),
    name: 'New Partner',
    callback_endpoints: [{ url: 'https://partner.example/cb' }],
    outbound_auth: { method: 'BEARER_STATIC', token: 'outbound-token-123' },
  };
  // Refused field by field, as `hookstream partners create` refuses it.
  const bad = await api.post('/api/admin/v1/partners', asOperator, {
    reason: 'onboarding',
    partner: { ...spec, callback_endpoints: [{ url: 'gopher://x' }] },
  });
  expect(bad.status).toBe(400);
  expect((bad.json as { message: string }).message).toContain('callback_endpoints[0].url: must use http or https');
  // The same, field by field, for a client to place beside its inputs.
  expect((bad.json as { fields: unknown[] }).fields).toEqual([
    { field: 'callback_endpoints[0].url', message: expect.stringContaining('must use http or https') },
  ]);
  const noReason = await api.post('/api/admin/v1/partners', asOperator, { partner: spec });
  expect([noReason.status, (noReason.json as { message: string }).message]).toEqual([400, expect.stringContaining('reason')]);

  const created = await api.post('/api/admin/v1/partners', asOperator, { reason: 'onboarding ticket 7', partner: spec });
  expect(created.status).toBe(201);
  const { api_key: key, partner } = (created.json as { data: { api_key: string; partner: Record<string, unknown> } }).data;
  expect(JSON.stringify(partner)).not.toContain('outbound-token-123');
  const shown = await cli('partners', 'show', spec.partner_id, '--json');
  expect(shown.json()).toEqual(partner);
  // The key it was given opens the webhook at once.
  expect((await postWebhook(ingress.webhookUrl, key, webhook({ transaction_number: 'TRX-ADMIN-1' }))).status).toBe(200);

  const again = await api.post('/api/admin/v1/partners', asOperator, { reason: 'twice', partner: spec });
  expect([again.status, (again.json as { message: string }).message]).toEqual([400, expect.stringContaining('exists already')]);

  const renamed = await api.patch(`/api/admin/v1/partners/${spec.partner_id}`, asOperator, {
    reason: 'rebrand',
    changes: { name: 'Renamed' },
    revision: 1,
  });
  expect((renamed.json as { data: { name: string; revision: number } }).data).toMatchObject({ name: 'Renamed', revision: 2 });
  // A change made to a revision read before that one is refused, not applied over it.
  const stale = await api.patch(`/api/admin/v1/partners/${spec.partner_id}`, asOperator, {
    reason: 'stale form',
    changes: { name: 'Stale' },
    revision: 1,
  });
  expect([stale.status, (stale.json as { message: string }).message]).toEqual([409, expect.stringContaining('changed since revision 1')]);

  const rotated = await api.post(`/api/admin/v1/partners/${spec.partner_id}/api-keys/rotate`, asOperator, {
    reason: 'key leaked in a log',
    overlap_hours: 0,
  });
  expect(rotated.status).toBe(201);
  const newKey = (rotated.json as { data: { api_key: string } }).data.api_key;
  await waitFor(
    async () => (await postWebhook(ingress.webhookUrl, key, webhook({ transaction_number: 'TRX-ADMIN-2' }))).status === 401 || undefined,
    'the old key refused after a rotation without overlap',
    10_000,
  );
  expect((await postWebhook(ingress.webhookUrl, newKey, webhook({ transaction_number: 'TRX-ADMIN-3' }))).status).toBe(200);

  const link = await api.post(`/api/admin/v1/partners/${spec.partner_id}/portal-tokens`, asOperator, { reason: 'console access' });
  const { token } = (link.json as { data: { token: string } }).data;
  const disabled = await api.post(`/api/admin/v1/partners/${spec.partner_id}/disable`, asOperator, { reason: 'contract ended' });
  expect((disabled.json as { data: { status: string } }).data.status).toBe('DISABLED');
  // Its portal link is told why it opens nothing now; a token never issued learns nothing of the kind.
  const refused = await api.get('/api/portal/v1/deliveries', bearer(token));
  expect([refused.status, (refused.json as { error_code: string }).error_code]).toEqual([401, 'PARTNER_DISABLED_ERR']);
  expect(((await api.get('/api/portal/v1/deliveries', bearer('not.a.token'))).json as { error_code: string }).error_code).toBe(
    'INVALID_API_KEY_ERR',
  );
  await waitFor(
    async () => (await postWebhook(ingress.webhookUrl, newKey, webhook({ transaction_number: 'TRX-ADMIN-4' }))).status === 401 || undefined,
    'the disabled partner refused',
    10_000,
  );
  expect((await api.post('/api/admin/v1/partners/nobody-here/disable', asOperator, { reason: 'x' })).status).toBe(404);
});

test('an operator issues a portal token that opens the partner API for that partner only', async () => {
  const issued = await api.post(`/api/admin/v1/partners/${failingPartner}/portal-tokens`, asOperator, {
    reason: 'partner asked for console access',
    ttl_minutes: 5,
  });
  expect(issued.status).toBe(201);
  const { token, expires_at } = (issued.json as { data: { token: string; expires_at: string } }).data;
  expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(300_000);
  const own = await api.get('/api/portal/v1/deliveries', bearer(token));
  expect(own.status).toBe(200);
  expect((own.json as Page<{ partner_id: string }>).data.every((d) => d.partner_id === failingPartner)).toBe(true);
});

test('a dead letter found across partners is replayed after a dry run, and the delivery is delivered', async () => {
  const dead = await waitFor(
    async () => {
      const page = (await api.get(`/api/admin/v1/deliveries?status=dead_lettered&partner_id=${failingPartner}`, asViewer)).json;
      return (page as Page<{ delivery_id: string }>).data[0];
    },
    'the dead-lettered delivery in the operator API',
    60_000,
  );
  const letters = await api.get(`/api/admin/v1/dead-letters?partner_id=${failingPartner}&last_status=503`, asViewer);
  expect(letters.json).toMatchObject({ selected: 1, not_replayed: 1, dead_letters: [{ delivery_id: dead.delivery_id, replayed: false }] });

  const selection = { topic: 'callback', delivery_id: [dead.delivery_id] };
  const dry = await api.post('/api/admin/v1/dead-letters/replay', asOperator, selection);
  expect(dry.json).toMatchObject({ dry_run: true, replay_id: null, counts: { replayed: 1 } });
  expect(failing.requests).toHaveLength(9);
  const refused = await api.post('/api/admin/v1/dead-letters/replay', asOperator, { ...selection, dry_run: false });
  expect([refused.status, (refused.json as { message: string }).message]).toEqual([400, expect.stringContaining('reason')]);

  const replayed = await api.post('/api/admin/v1/dead-letters/replay', asOperator, {
    ...selection,
    dry_run: false,
    reason: 'partner is back',
  });
  expect(replayed.json).toMatchObject({ dry_run: false, counts: { replayed: 1 }, decisions: [{ delivery_id: dead.delivery_id }] });
  await waitFor(
    async () =>
      ((await api.get(`/api/admin/v1/deliveries/${dead.delivery_id}`, asViewer)).json as { data: { state: string } }).data.state ===
        'delivered' || undefined,
    'the replayed delivery delivered',
    60_000,
  );
  const health = (await api.get('/api/portal/v1/endpoints', await portalToken(failingPartner))).json as {
    data: { circuit_state: string; endpoints: Array<{ endpoint_id: string; last_hour: Record<string, number> }> };
  };
  expect(health.data.circuit_state).toBe('closed');
  expect(health.data.endpoints).toEqual([
    expect.objectContaining({ endpoint_id: 'main', last_hour: expect.objectContaining({ sends: 10, delivered: 1, success_rate: 0.1 }) }),
  ]);
});

test('every write is in the audit trail with who and why, and a revoked operator opens nothing', async () => {
  const trail = await waitFor(
    async () => {
      const page = (await api.get('/api/admin/v1/audit?limit=200', asViewer)).json as Page<Record<string, unknown>>;
      return page.data.some((a) => a['reason'] === 'health check') ? page.data : undefined;
    },
    'the last write in the audit trail',
    30_000,
  );
  const byOperator = trail.filter((a) => a['actor_id'] === operatorId).map((a) => [a['action'], a['reason']]);
  expect(byOperator.reverse()).toEqual([
    ['partner.create', 'onboarding ticket 7'],
    ['partner.update', 'rebrand'],
    ['partner.rotate-key', 'key leaked in a log'],
    ['portal-token.issue', 'console access'],
    ['partner.disable', 'contract ended'],
    ['portal-token.issue', 'partner asked for console access'],
    ['dead-letters.replay', 'partner is back'],
    ['portal-token.issue', 'health check'],
  ]);
  expect(trail).toEqual(
    expect.arrayContaining([expect.objectContaining({ action: 'operator.create', actor_type: 'cli', reason: 'on call this week' })]),
  );
  expect(JSON.stringify(trail)).not.toMatch(/hso_|hsk_|eyJ/);

  const revoked = await cli('operators', 'revoke', operatorId, '--reason', 'left the team');
  expect(revoked.code).toBe(0);
  await waitFor(
    async () => (await api.get('/api/admin/v1/me', asOperator)).status === 401 || undefined,
    'the revoked token refused',
    10_000,
  );
  expect((await api.get('/api/admin/v1/partners', {})).status).toBe(401);
  expect((await api.get('/api/admin/v1/partners', bearer('hso_' + 'A'.repeat(43)))).status).toBe(401);
});

/** Partner credentials for the partner API: a portal token an operator issues. */
async function portalToken(partnerId: string): Promise<Record<string, string>> {
  const answer = await api.post(`/api/admin/v1/partners/${partnerId}/portal-tokens`, asOperator, { reason: 'health check' });
  return bearer((answer.json as { data: { token: string } }).data.token);
}

test('the console’s script and stylesheet are served gzipped to a browser that takes gzip, and plain to one that does not', async () => {
  const get = (asset: string, encoding: string) =>
    new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      httpGet(`${log.url}/console/${asset}`, { headers: { 'accept-encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
  for (const [asset, type] of [
    ['app.js', /javascript/],
    ['styles.css', /text\/css/],
  ] as const) {
    const plain = await get(asset, 'identity');
    const zipped = await get(asset, 'gzip, deflate, br');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toMatch(type);
    expect(zipped.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(zipped.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
  }
});

test('the console signs in with a token into an HttpOnly SameSite=Strict cookie (Secure behind TLS), and a write with it needs the CSRF token', async () => {
  const token = (await cli('operators', 'create', '--name', 'Cora Console', '--role', 'operator', '--json')).json()['token'] as string;
  const signIn = (headers: Record<string, string>) =>
    fetch(`${log.url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ operator_token: token }),
    });
  const plain = await signIn({});
  expect(plain.status).toBe(201);
  const cookie = plain.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  expect(cookie).not.toMatch(/Secure/);
  expect(cookie).not.toContain(token);
  expect((await signIn({ 'x-forwarded-proto': 'https' })).headers.get('set-cookie')).toMatch(/Secure/);
  expect(plain.headers.get('content-security-policy')).toMatch(/script-src 'self'/);

  const session = cookie.split(';')[0]!;
  const { data } = (await plain.json()) as { data: { csrf_token: string; name: string } };
  expect(data.name).toBe('Cora Console');
  const asConsole = (extra: Record<string, string>) => ({ cookie: session, ...extra });
  // Reads need the cookie only; a write without the session's CSRF token is refused before it runs.
  expect((await api.get('/api/admin/v1/me', asConsole({}))).status).toBe(200);
  const body = { reason: 'console write', ttl_minutes: 5 };
  const refused = await api.post(`/api/admin/v1/partners/${failingPartner}/portal-tokens`, asConsole({}), body);
  expect([refused.status, (refused.json as { error_code: string }).error_code]).toEqual([403, 'FORBIDDEN_ERR']);
  expect(
    (await api.post(`/api/admin/v1/partners/${failingPartner}/portal-tokens`, asConsole({ 'x-csrf-token': 'wrong' }), body)).status,
  ).toBe(403);
  const allowed = await api.post(
    `/api/admin/v1/partners/${failingPartner}/portal-tokens`,
    asConsole({ 'x-csrf-token': data.csrf_token }),
    body,
  );
  expect(allowed.status).toBe(201);
});
