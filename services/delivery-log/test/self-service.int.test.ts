/**
 * A partner's self-service through the partner API, against Kafka and a delivery log on a
 * PostgreSQL database of its own: its endpoints added (an SSRF-refused URL and other bad values
 * refused beside their field), edited, disabled and deleted, each audited; another partner's
 * endpoint is not found; a portal token reads but may not change; an operator turns self-service
 * off (403) and on again; its signing secret rotated (Standard Webhooks: an overlap; HMAC_SHA256: a
 * staged switch, activated early; another method: 409); the endpoint changes limited (429). Every
 * answer is checked against the served OpenAPI (ApiClient).
 */
import { OutboundFixture, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, startService, type RunningService } from '../../../test/helpers/outbound';
import { runCli } from '../../../test/helpers/processes';
import { waitFor } from '../../../test/helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';
import { ApiClient } from './support/api-client';

/** DELIVERY_LOG_ENDPOINT_CHANGES_PER_HOUR of the service under test. */
const CHANGES_PER_HOUR = 8;
const HOUR_MS = 3_600_000;
const ORIGINAL_WHSEC = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;

let fixture: OutboundFixture;
let log: RunningService;
let database: StateDatabase;
let api: ApiClient;
let asOperator: Record<string, string>;
const webhooks = uniquePartnerId('self-sw');
const hmac = uniquePartnerId('self-hmac');
const bearer = uniquePartnerId('self-bearer');
const keys: Record<string, string> = {};
const as = (partnerId: string) => ({ 'x-api-key': keys[partnerId]! });

type Endpoint = { endpoint_id: string; url: string; configuration: { timeout_ms: number; statuses: string[]; disabled: boolean } };
type Refused = { error_code: string; message: string; fields?: Array<{ field: string; message: string }> };

beforeAll(async () => {
  fixture = await OutboundFixture.open('self-service', { env: { DELIVERY_LOG_ENDPOINT_CHANGES_PER_HOUR: String(CHANGES_PER_HOUR) } });
  const endpoint = { endpoint_id: 'main', url: 'http://127.0.0.1:9/main' };
  keys[webhooks] = await fixture.partners.create(webhooks, {
    callback_endpoints: [endpoint],
    outbound_auth: { method: 'STANDARD_WEBHOOKS', secret: ORIGINAL_WHSEC },
  });
  keys[hmac] = await fixture.partners.create(hmac, {
    callback_endpoints: [endpoint],
    outbound_auth: { method: 'HMAC_SHA256', api_key: 'ak', secret: 'old-secret' },
  });
  keys[bearer] = await fixture.partners.create(bearer, {
    callback_endpoints: [endpoint],
    outbound_auth: { method: 'BEARER_STATIC', token: 't' },
  });
  database = await freshStateDatabase();
  const env = { ...process.env, ...fixture.env, TOPIC_PREFIX: fixture.prefix };
  const [started, operator] = await Promise.all([
    startService(DELIVERY_LOG_ENTRY, fixture.prefix, { ...fixture.env, DELIVERY_LOG_DATABASE_URL: database.url, HTTP_PORT: '0' }),
    runCli(['operators', 'create', '--name', 'Sam Switch', '--role', 'operator', '--json'], { env }),
  ]);
  log = started;
  asOperator = { authorization: `Bearer ${(JSON.parse(operator.stdout) as { token: string }).token}` };
  api = await ApiClient.open(log.url);
}, 180_000);

afterAll(async () => {
  await log?.stop();
  await fixture?.close();
  await database?.drop();
  await stopStateServer();
});

const endpoints = async (partnerId: string, headers: Record<string, string> = as(partnerId)) => {
  const answer = await api.get('/api/portal/v1/endpoints', headers);
  expect(answer.status).toBe(200);
  return answer.json as { data: { self_service: boolean; endpoints: Endpoint[] } };
};
const audit = async (action: string, partnerId: string) => {
  const answer = await api.get(`/api/admin/v1/audit?subject_id=${partnerId}&action=${action}`, asOperator);
  return (answer.json as { data: Array<{ actor_type: string; actor_id: string; detail: Record<string, unknown> }> }).data;
};

test('an endpoint with an SSRF-refused URL, a bad timeout or an unknown status is refused naming each field; a good one is added, edited, disabled and deleted, each audited', async () => {
  for (const url of ['http://10.0.0.7/callbacks', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/cb']) {
    const refused = await api.post('/api/portal/v1/endpoints', as(webhooks), { url });
    expect(refused.status).toBe(400);
    expect((refused.json as Refused).fields).toEqual([
      { field: 'url', message: expect.stringMatching(/^refused by the SSRF guard: .* (private|cloud-metadata|loopback) address/) },
    ]);
  }
  // A name: the same words whether it does not resolve or resolves somewhere refused, and no address in them.
  const unresolved = await api.post('/api/portal/v1/endpoints', as(bearer), { url: 'http://no-such-host.invalid/cb' });
  expect(unresolved.status).toBe(400);
  const [problem] = (unresolved.json as Refused).fields!;
  expect(problem).toEqual({
    field: 'url',
    message: expect.stringMatching(/^refused by the SSRF guard: its host does not resolve to an address callbacks may reach/),
  });
  expect(problem!.message).not.toMatch(/\d+\.\d+\.\d+\.\d+/);
  const invalid = await api.post('/api/portal/v1/endpoints', as(webhooks), {
    url: 'ftp://partner.example/x',
    timeout_ms: 50,
    statuses: ['POLICY_LAPSED'],
  });
  expect(invalid.status).toBe(400);
  expect((invalid.json as Refused).fields!.map((f) => f.field)).toEqual(['url', 'timeout_ms', 'statuses[0]']);

  // Loopback is allowed by this deployment's SSRF_ALLOW (the test receivers'), as the sender's.
  const added = await api.post('/api/portal/v1/endpoints', as(webhooks), {
    url: 'http://127.0.0.1:9/active-only?token=abc',
    statuses: ['POLICY_ACTIVE'],
    reason: 'second system',
  });
  expect(added.status).toBe(201);
  const endpoint = (added.json as { data: Endpoint }).data;
  expect(endpoint).toMatchObject({ configuration: { timeout_ms: 10_000, statuses: ['POLICY_ACTIVE'], disabled: false } });
  expect((await endpoints(webhooks)).data.endpoints.map((e) => e.endpoint_id)).toEqual(['main', endpoint.endpoint_id]);

  const path = `/api/portal/v1/endpoints/${endpoint.endpoint_id}`;
  const edited = await api.patch(path, as(webhooks), { timeout_ms: 5000, statuses: [] });
  expect(edited.status).toBe(200);
  expect((edited.json as { data: Endpoint }).data.configuration).toMatchObject({ timeout_ms: 5000, statuses: [] });
  expect((await api.patch(path, as(webhooks), { url: 'http://192.168.1.1/x' })).status).toBe(400);
  expect((await api.patch(path, as(webhooks), { disabled: true })).status).toBe(200);
  expect((await endpoints(webhooks)).data.endpoints.find((e) => e.endpoint_id === endpoint.endpoint_id)!.configuration.disabled).toBe(true);

  // Another partner's endpoint id answers as an unknown one.
  const foreign = await api.patch(path, as(hmac), { disabled: false });
  expect(foreign.status).toBe(404);
  expect((await api.send('delete', path, as(hmac))).status).toBe(404);

  expect((await api.send('delete', path, as(webhooks), {})).status).toBe(204);
  const last = await api.send('delete', '/api/portal/v1/endpoints/main', as(webhooks), {});
  expect(last.status).toBe(409);
  expect((last.json as Refused).message).toMatch(/last callback endpoint: disable it instead/);

  const trail = await waitFor(
    async () => {
      const found = await audit('partner.endpoint-add', webhooks);
      return found.length > 0 ? found : undefined;
    },
    'the endpoint added, in the audit trail',
    30_000,
  );
  expect(trail[0]).toMatchObject({ actor_type: 'partner', actor_id: webhooks });
  // The URL without its query (a token may hide there); the fields set.
  expect(trail[0]!.detail).toMatchObject({ url: 'http://127.0.0.1:9/active-only', changed: ['statuses', 'url'] });
  expect(JSON.stringify(trail[0]!.detail)).not.toContain('token=abc');
  expect(
    await waitFor(async () => (await audit('partner.endpoint-delete', webhooks)).length || undefined, 'the deletion audited', 30_000),
  ).toBe(1);
}, 90_000);

test('a portal token reads the endpoints and the signing secret, but changes neither (403)', async () => {
  const issued = await api.post(`/api/admin/v1/partners/${webhooks}/portal-tokens`, asOperator, { reason: 'support', ttl_minutes: 5 });
  const asLink = { authorization: `Bearer ${(issued.json as { data: { token: string } }).data.token}` };
  expect((await endpoints(webhooks, asLink)).data.endpoints.length).toBe(1);
  expect((await api.get('/api/portal/v1/signing-secret', asLink)).status).toBe(200);
  const tries = [
    await api.post('/api/portal/v1/endpoints', asLink, { url: 'https://attacker.example/steal' }),
    await api.patch('/api/portal/v1/endpoints/main', asLink, { url: 'https://attacker.example/steal' }),
    await api.send('delete', '/api/portal/v1/endpoints/main', asLink, {}),
    await api.post('/api/portal/v1/signing-secret/rotate', asLink, {}),
  ];
  for (const refused of tries) {
    expect(refused.status).toBe(403);
    expect((refused.json as Refused).message).toMatch(/^a portal link cannot .*: use the API key/);
  }
  expect((await endpoints(webhooks)).data.endpoints[0]!.url).toBe('http://127.0.0.1:9/main');
});

test('an operator turns a partner’s self-service off: its changes answer 403 saying so, reads still answer; on again, they work', async () => {
  const off = await api.post(`/api/admin/v1/partners/${bearer}/self-service`, asOperator, { enabled: false, reason: 'contract review' });
  expect(off.status).toBe(200);
  expect((off.json as { data: { self_service: boolean } }).data.self_service).toBe(false);
  expect((await endpoints(bearer)).data.self_service).toBe(false);
  const refused = await api.patch('/api/portal/v1/endpoints/main', as(bearer), { timeout_ms: 2000 });
  expect(refused.status).toBe(403);
  expect((refused.json as Refused).message).toMatch(/the insurer turned self-service off/);
  expect((await api.post('/api/portal/v1/signing-secret/rotate', as(bearer), {})).status).toBe(403);

  expect((await api.post(`/api/admin/v1/partners/${bearer}/self-service`, asOperator, { enabled: true, reason: 'done' })).status).toBe(200);
  expect((await api.patch('/api/portal/v1/endpoints/main', as(bearer), { timeout_ms: 2000 })).status).toBe(200);
  const switched = await waitFor(async () => (await audit('partner.self-service-off', bearer))[0], 'the switch audited', 30_000);
  expect(switched).toMatchObject({ actor_type: 'operator' });
});

test('signing secrets: Standard Webhooks rotates with an overlap, HMAC_SHA256 with a staged switch activated early, a static bearer token is 409', async () => {
  const before = Date.now();
  const rotated = await api.post('/api/portal/v1/signing-secret/rotate', as(webhooks), { reason: 'yearly' });
  expect(rotated.status).toBe(201);
  const secret = (rotated.json as { data: { secret: string; previous_secret_until: string } }).data;
  expect(secret.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const until = Date.parse(secret.previous_secret_until);
  expect(until).toBeGreaterThanOrEqual(before + 24 * HOUR_MS);
  expect(until).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS);
  const state = await api.get('/api/portal/v1/signing-secret', as(webhooks));
  expect((state.json as { data: unknown }).data).toEqual({
    method: 'STANDARD_WEBHOOKS',
    rotatable: true,
    previous_secret_until: secret.previous_secret_until,
    next_secret_from: null,
    self_service: true,
  });
  const trail = await waitFor(async () => (await audit('partner.rotate-signing-secret', webhooks))[0], 'the rotation audited', 30_000);
  expect(JSON.stringify(trail)).not.toContain(secret.secret.slice(6, 30));

  const staged = await api.post('/api/portal/v1/signing-secret/rotate', as(hmac), {});
  expect(staged.status).toBe(201);
  expect(Date.parse((staged.json as { data: { next_secret_from: string } }).data.next_secret_from)).toBeGreaterThan(
    Date.now() + 23 * HOUR_MS,
  );
  const activated = await api.post('/api/portal/v1/signing-secret/activate', as(hmac), {});
  expect(activated.status).toBe(200);
  expect((activated.json as { data: unknown }).data).toEqual({ method: 'HMAC_SHA256', next_secret_from: null });
  expect((await api.post('/api/portal/v1/signing-secret/activate', as(hmac), {})).status).toBe(409);

  const other = await api.post('/api/portal/v1/signing-secret/rotate', as(bearer), {});
  expect(other.status).toBe(409);
  expect((other.json as Refused).message).toMatch(/authenticated with BEARER_STATIC: .*ask an operator/);
});

test(`past ${CHANGES_PER_HOUR} endpoint changes in an hour, the next answers 429 with Retry-After (refused ones cost none, but a host name the SSRF guard refused costs one)`, async () => {
  // Probing where names resolve is paid for: a host name the SSRF guard refused keeps its place (an address typed in does not).
  expect((await api.patch('/api/portal/v1/endpoints/main', as(hmac), { url: 'http://10.0.0.7/cb' })).status).toBe(400);
  expect((await api.patch('/api/portal/v1/endpoints/main', as(hmac), { url: 'http://no-such-host.invalid/cb' })).status).toBe(400);
  const statuses: number[] = [];
  for (let i = 0; i < CHANGES_PER_HOUR - 1; i++) {
    // A refused change gives its place back: it does not count.
    expect((await api.patch('/api/portal/v1/endpoints/main', as(hmac), { timeout_ms: 1 })).status).toBe(400);
    statuses.push((await api.patch('/api/portal/v1/endpoints/main', as(hmac), { timeout_ms: 3000 + i })).status);
  }
  expect(statuses).toEqual(Array<number>(CHANGES_PER_HOUR - 1).fill(200));
  const answer = await api.patch('/api/portal/v1/endpoints/main', as(hmac), { timeout_ms: 2500 });
  expect(answer.status).toBe(429);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(3000);
  expect((await api.patch('/api/portal/v1/endpoints/main', as(webhooks), { timeout_ms: 3000 })).status).toBe(200);
});
