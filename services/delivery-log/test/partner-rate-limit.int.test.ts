/**
 * The partner API's rate limit, on the delivery log on a database of its own and two partners
 * onboarded on the real broker: a partner past its rate is answered 429 with Retry-After (and the
 * answer fits the spec), while another partner's requests to the same replica still pass.
 */
import { OutboundFixture, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, startService, type RunningService } from '../../../test/helpers/outbound';
import { ApiClient } from './support/api-client';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';

const PER_SECOND = 2;
let fixture: OutboundFixture;
let log: RunningService;
let api: ApiClient;
let logDatabase: StateDatabase | undefined;
const busy = uniquePartnerId('rate-busy');
const quiet = uniquePartnerId('rate-quiet');
let busyKey: string;
let quietKey: string;

beforeAll(async () => {
  fixture = await OutboundFixture.open('partner-rate-limit');
  const endpoint = {
    callback_endpoints: [{ url: 'https://partner.example/callbacks' }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  };
  [busyKey, quietKey] = await Promise.all([fixture.partners.create(busy, endpoint), fixture.partners.create(quiet, endpoint)]);
  logDatabase = await freshStateDatabase();
  log = await startService(DELIVERY_LOG_ENTRY, fixture.prefix, {
    ...fixture.env,
    DELIVERY_LOG_DATABASE_URL: logDatabase.url,
    HTTP_PORT: '0',
    DELIVERY_LOG_PARTNER_REQUESTS_PER_SECOND: String(PER_SECOND),
  });
  api = await ApiClient.open(log.url);
});

afterAll(async () => {
  await log?.stop();
  await fixture?.close();
  await logDatabase?.drop();
  await stopStateServer();
});

test('when a partner passes its rate, then it is answered 429 with Retry-After while another partner still passes', async () => {
  const window = PER_SECOND * 10;
  const answers = [];
  for (let i = 0; i < window + 3; i++) answers.push(await api.get('/api/portal/v1/deliveries?limit=1', { 'x-api-key': busyKey }));

  expect(answers.slice(0, window).map((a) => a.status)).toEqual(Array(window).fill(200));
  const refused = answers.at(-1)!;
  expect(refused.status).toBe(429);
  expect(refused.json).toMatchObject({ error_code: 'TOO_MANY_REQUESTS_ERR' });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(10);

  expect((await api.get('/api/portal/v1/deliveries?limit=1', { 'x-api-key': quietKey })).status).toBe(200);
});

test('when the endpoints’ health is asked with a parameter it does not take, then it is refused naming it, as every list does', async () => {
  const answer = await api.get('/api/portal/v1/endpoints?colour=blue', { 'x-api-key': quietKey });
  expect(answer.status).toBe(400);
  expect(answer.json).toMatchObject({ fields: [{ field: 'colour', message: 'is not a known parameter' }] });
});
