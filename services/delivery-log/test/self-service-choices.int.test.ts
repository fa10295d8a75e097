/**
 * What a partner chooses through the partner API's self-service, against Kafka and a delivery log on
 * a PostgreSQL database of its own: the overlap of a signing-secret rotation (1 hour to 7 days;
 * outside, 400 naming overlap_hours), read back from the partner record the callback-sender signs
 * from; an endpoint's name and description (at most 80 and 300 characters; longer, 400 naming the
 * field), set by the partner when adding or editing and by an operator in onboarding, kept in the
 * partner record and answered by both APIs. Every answer is checked against the served OpenAPI
 * (ApiClient).
 */
import { OutboundFixture, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, startService, type RunningService } from '../../../test/helpers/outbound';
import { runCli } from '../../../test/helpers/processes';
import { waitFor } from '../../../test/helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';
import { ApiClient } from './support/api-client';

const HOUR_MS = 3_600_000;

let fixture: OutboundFixture;
let log: RunningService;
let database: StateDatabase;
let api: ApiClient;
let asOperator: Record<string, string>;
const webhooks = uniquePartnerId('choice-sw');
const hmac = uniquePartnerId('choice-hmac');
const keys: Record<string, string> = {};
const as = (partnerId: string) => ({ 'x-api-key': keys[partnerId]! });

type Refused = { error_code: string; fields?: Array<{ field: string; message: string }> };
type Named = { endpoint_id: string; name: string | null; description: string | null };

beforeAll(async () => {
  fixture = await OutboundFixture.open('self-service-choices');
  const endpoint = { endpoint_id: 'main', url: 'http://127.0.0.1:9/main' };
  keys[webhooks] = await fixture.partners.create(webhooks, {
    callback_endpoints: [endpoint],
    outbound_auth: { method: 'STANDARD_WEBHOOKS', secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}` },
  });
  keys[hmac] = await fixture.partners.create(hmac, {
    callback_endpoints: [endpoint],
    outbound_auth: { method: 'HMAC_SHA256', api_key: 'ak', secret: 'old-secret' },
  });
  database = await freshStateDatabase();
  const env = { ...process.env, ...fixture.env, TOPIC_PREFIX: fixture.prefix };
  const [started, operator] = await Promise.all([
    startService(DELIVERY_LOG_ENTRY, fixture.prefix, { ...fixture.env, DELIVERY_LOG_DATABASE_URL: database.url, HTTP_PORT: '0' }),
    runCli(['operators', 'create', '--name', 'Nia Names', '--role', 'operator', '--json'], { env }),
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

test('an overlap of 0, of 8 days or not a number is refused with 400 naming overlap_hours, and nothing rotates', async () => {
  for (const overlap_hours of [0, 0.5, 8 * 24, '24']) {
    const refused = await api.post('/api/portal/v1/signing-secret/rotate', as(webhooks), { overlap_hours });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error_code: 'INVALID_PAYLOAD_VALIDATION_ERR' });
    expect((refused.json as Refused).fields!.map((f) => f.field)).toEqual(['overlap_hours']);
  }
  const state = await api.get('/api/portal/v1/signing-secret', as(webhooks));
  expect((state.json as { data: { previous_secret_until: string | null } }).data.previous_secret_until).toBeNull();
});

test('a Standard Webhooks rotation with a 2-hour overlap: the previous secret signs until 2 hours from now, as the partner record says', async () => {
  const before = Date.now();
  const rotated = await api.post('/api/portal/v1/signing-secret/rotate', as(webhooks), { overlap_hours: 2, reason: 'chosen overlap' });
  expect(rotated.status).toBe(201);
  const until = Date.parse((rotated.json as { data: { previous_secret_until: string } }).data.previous_secret_until);
  expect(until).toBeGreaterThanOrEqual(before + 2 * HOUR_MS);
  expect(until).toBeLessThanOrEqual(Date.now() + 2 * HOUR_MS);
  // Read back from the partner directory (the partner-config topic the callback-sender reads): the end it signs with both until.
  const state = await api.get('/api/portal/v1/signing-secret', as(webhooks));
  expect((state.json as { data: { previous_secret_until: string } }).data.previous_secret_until).toBe(new Date(until).toISOString());
});

test('an HMAC_SHA256 rotation with a 7-day overlap switches 7 days from now; without one, 24 hours (the deployment default)', async () => {
  const before = Date.now();
  const week = await api.post('/api/portal/v1/signing-secret/rotate', as(hmac), { overlap_hours: 7 * 24 });
  expect(week.status).toBe(201);
  const from = Date.parse((week.json as { data: { next_secret_from: string } }).data.next_secret_from);
  expect(from).toBeGreaterThanOrEqual(before + 7 * 24 * HOUR_MS);
  expect(from).toBeLessThanOrEqual(Date.now() + 7 * 24 * HOUR_MS);

  const again = Date.now();
  const byDefault = await api.post('/api/portal/v1/signing-secret/rotate', as(hmac), {});
  expect(byDefault.status).toBe(201);
  const switchAt = Date.parse((byDefault.json as { data: { next_secret_from: string } }).data.next_secret_from);
  expect(switchAt).toBeGreaterThanOrEqual(again + 24 * HOUR_MS);
  expect(switchAt).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS);
});

test('an endpoint named and described by the partner: too long is 400 naming each field; kept, answered in the list, edited, cleared', async () => {
  const tooLong = await api.post('/api/portal/v1/endpoints', as(webhooks), {
    url: 'http://127.0.0.1:9/claims',
    name: 'n'.repeat(81),
    description: 'd'.repeat(301),
  });
  expect(tooLong.status).toBe(400);
  expect((tooLong.json as Refused).fields!.map((f) => f.field)).toEqual(['name', 'description']);
  expect((tooLong.json as Refused).fields![0]!.message).toBe('must be at most 80 characters');

  const added = await api.post('/api/portal/v1/endpoints', as(webhooks), {
    url: 'http://127.0.0.1:9/claims',
    name: '  Claims system ',
    description: 'd'.repeat(300),
  });
  expect(added.status).toBe(201);
  const endpoint = (added.json as { data: Named }).data;
  expect(endpoint).toMatchObject({ name: 'Claims system', description: 'd'.repeat(300) });
  const listed = async () =>
    ((await api.get('/api/portal/v1/endpoints', as(webhooks))).json as { data: { endpoints: Named[] } }).data.endpoints;
  // The first endpoint has none: null, the id stands for it.
  expect((await listed()).map((e) => [e.endpoint_id, e.name])).toEqual([
    ['main', null],
    [endpoint.endpoint_id, 'Claims system'],
  ]);

  const path = `/api/portal/v1/endpoints/${endpoint.endpoint_id}`;
  expect((await api.patch(path, as(webhooks), { name: 'x'.repeat(81) })).status).toBe(400);
  const renamed = await api.patch(path, as(webhooks), { name: 'Claims (new)', description: null });
  expect(renamed.status).toBe(200);
  expect((renamed.json as { data: Named }).data).toMatchObject({ name: 'Claims (new)', description: null });
  // Emptied: none.
  expect(((await api.patch(path, as(webhooks), { name: '' })).json as { data: Named }).data.name).toBeNull();
  expect((await listed()).find((e) => e.endpoint_id === endpoint.endpoint_id)).toMatchObject({ name: null, description: null });
});

test('an operator names and describes endpoints in onboarding; too long is 400 naming the endpoint’s field; the partner API answers them', async () => {
  const partnerId = uniquePartnerId('choice-named');
  const spec = (name: string) => ({
    partner_id: partnerId,
    name: 'Named Endpoints Ltd',
    callback_endpoints: [{ endpoint_id: 'claims', name, description: 'Policy changes for claims handling', url: 'http://127.0.0.1:9/c' }],
    outbound_auth: { method: 'BEARER_STATIC', token: 'outbound-token-123' },
  });
  const refused = await api.post('/api/admin/v1/partners', asOperator, { partner: spec('n'.repeat(81)), reason: 'onboarding' });
  expect(refused.status).toBe(400);
  expect((refused.json as Refused).fields!.map((f) => f.field)).toEqual(['callback_endpoints[0].name']);

  const created = await api.post('/api/admin/v1/partners', asOperator, { partner: spec('Claims system'), reason: 'onboarding' });
  expect(created.status).toBe(201);
  const { api_key } = (created.json as { data: { api_key: string } }).data;
  const shown = await api.get(`/api/admin/v1/partners/${partnerId}`, asOperator);
  expect((shown.json as { data: { callback_endpoints: Named[] } }).data.callback_endpoints[0]).toMatchObject({
    name: 'Claims system',
    description: 'Policy changes for claims handling',
  });
  // The partner's key works once the delivery log's directory has the new partner.
  const own = await waitFor(
    async () => {
      const answer = await api.get('/api/portal/v1/endpoints', { 'x-api-key': api_key });
      return answer.status === 200 ? answer : undefined;
    },
    'the new partner’s endpoints in the partner API',
    30_000,
  );
  expect((own.json as { data: { endpoints: Named[] } }).data.endpoints[0]).toMatchObject({
    endpoint_id: 'claims',
    name: 'Claims system',
    description: 'Policy changes for claims handling',
  });
});
