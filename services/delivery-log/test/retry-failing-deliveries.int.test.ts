/**
 * Retrying every failing delivery of one endpoint at once, on the real pipeline (Kafka, the
 * consumer, the sender, the delivery log on a PostgreSQL database of its own): three deliveries
 * failing to one endpoint, one to another. The dry run lists the three and writes nothing; the call
 * retries the three now (each a RETRY_NOW attempt at the endpoint), the other endpoint's untouched;
 * a second call at once refuses each as in flight; with the hour's places used up, the other
 * endpoint's is refused for that reason and none is sent.
 */
import { Client } from 'pg';
import { OutboundFixture, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, policyEvent, startService, type Receiver, type RunningService } from '../../../test/helpers/outbound';
import { waitFor } from '../../../test/helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';
import { ApiClient } from './support/api-client';

/** Every retry tier longer than the test: the deliveries stay failing, and only a retry now sends them. */
const DELAYS = Array<number>(8).fill(600_000);
/** The partner's resends and retries now in an hour: the three retried use them all up. */
const PER_HOUR = 3;

interface Delivery {
  delivery_id: string;
  endpoint_id: string;
  state: string;
  /** In a delivery's detail. */
  attempts: Array<{ outcome: string; trigger: string | null }>;
}
interface Item {
  delivery_id: string;
  endpoint_id: string;
  retry_id?: string | null;
  reason?: string;
  retry_after_seconds?: number;
}
interface FailingRetry {
  dry_run: boolean;
  selected: number;
  resends_left_this_hour: number;
  retried: Item[];
  not_retried: Item[];
}

const partnerId = uniquePartnerId('retry-failing');
let fixture: OutboundFixture;
let main: Receiver;
let other: Receiver;
let log: RunningService;
let logDatabase: StateDatabase;
let api: ApiClient;
let asPartner: Record<string, string>;
/** Once true, main holds each request past its timeout: a retry now stays in flight that long. */
let hanging = false;

beforeAll(async () => {
  fixture = await OutboundFixture.open('retry-failing', { retryDelaysMs: DELAYS, breaker: { failures: 1000, openMs: 100 } });
  main = await fixture.receiver(() => (hanging ? 'hang' : 503));
  other = await fixture.receiver(() => 503);
  asPartner = {
    'x-api-key': await fixture.partners.create(partnerId, {
      callback_endpoints: [
        { endpoint_id: 'main', url: main.url, statuses: ['POLICY_ACTIVE'], timeout_ms: 5_000 },
        { endpoint_id: 'other', url: other.url, statuses: ['POLICY_CANCELLED'] },
      ],
      outbound_auth: { method: 'API_KEY', api_key: 'k' },
    }),
  };
  logDatabase = await freshStateDatabase();
  const env = {
    ...fixture.env,
    DELIVERY_LOG_DATABASE_URL: logDatabase.url,
    HTTP_PORT: '0',
    DELIVERY_LOG_RESENDS_PER_HOUR: String(PER_HOUR),
  };
  [log] = await Promise.all([startService(DELIVERY_LOG_ENTRY, fixture.prefix, env), fixture.startConsumer(), fixture.startSender()]);
  api = await ApiClient.open(log.url);
}, 180_000);

afterAll(async () => {
  await log?.stop();
  await fixture?.close();
  await logDatabase?.drop();
  await stopStateServer();
});

const deliveries = async () => ((await api.get('/api/portal/v1/deliveries?limit=50', asPartner)).json as { data: Delivery[] }).data;
const detail = async (id: string) => ((await api.get(`/api/portal/v1/deliveries/${id}`, asPartner)).json as { data: Delivery }).data;
const retryFailing = async (endpointId: string, body: Record<string, unknown>) => {
  const answer = await api.post(`/api/portal/v1/endpoints/${endpointId}/retry-failing`, asPartner, body);
  expect(answer.status).toBe(200);
  return (answer.json as { data: FailingRetry }).data;
};

/** Rows of the partner's in the tables a retry now writes: its hourly places and its claims. */
async function written(): Promise<number> {
  const db = new Client({ connectionString: logDatabase.url });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: string }>(
      `select (select count(*) from resend_reservations where partner_id = $1) +
              (select count(*) from retry_now_claims c join deliveries d using (delivery_id) where d.partner_id = $1) as n`,
      [partnerId],
    );
    return Number(rows[0]!.n);
  } finally {
    await db.end();
  }
}

test('an endpoint’s failing deliveries: dry run, then retried at once, in flight to a second call, and the hour’s limit with its reason', async () => {
  await fixture.events.publish([
    ...[1, 2, 3].map((n) => policyEvent(partnerId, {}, { policy_number: `P-RF-${n}` })),
    policyEvent(partnerId, {}, { policy_number: 'P-RF-OTHER', status: 'POLICY_CANCELLED' }),
  ]);
  const failing = await waitFor(
    async () => {
      const found = (await deliveries()).filter((d) => d.state === 'failing');
      return found.length === 4 ? found : undefined;
    },
    'four deliveries failing in the log',
    60_000,
  );
  const mainIds = failing.filter((d) => d.endpoint_id === 'main').map((d) => d.delivery_id);
  const otherId = failing.find((d) => d.endpoint_id === 'other')!.delivery_id;
  expect(mainIds).toHaveLength(3);

  const dryRun = await retryFailing('main', {});
  expect(dryRun).toMatchObject({ dry_run: true, selected: 3, resends_left_this_hour: PER_HOUR, not_retried: [] });
  expect(dryRun.retried.map((d) => [d.delivery_id, d.retry_id]).sort()).toEqual(mainIds.map((id) => [id, null]).sort());
  expect(await written()).toBe(0);

  // Another partner's endpoint, or none, is not found; a body field of the wrong type is named.
  expect((await api.post('/api/portal/v1/endpoints/nope/retry-failing', asPartner, {})).status).toBe(404);
  const bad = await api.post('/api/portal/v1/endpoints/main/retry-failing', asPartner, { dry_run: 'no' });
  expect([bad.status, bad.json]).toEqual([400, expect.objectContaining({ fields: [expect.objectContaining({ field: 'dry_run' })] })]);

  hanging = true;
  const sentAt = Date.now();
  const run = await retryFailing('main', { dry_run: false, reason: 'endpoint fixed' });
  expect(run.not_retried).toEqual([]);
  expect(run.retried.map((d) => d.delivery_id).sort()).toEqual([...mainIds].sort());
  expect(run.retried.every((d) => typeof d.retry_id === 'string')).toBe(true);

  // At once again: each of the three is still in flight (main holds its request for its 5 s timeout).
  const again = await retryFailing('main', { dry_run: false });
  expect(again.retried).toEqual([]);
  expect(again.not_retried.map((d) => [d.delivery_id, d.reason]).sort()).toEqual(mainIds.map((id) => [id, 'in_flight']).sort());

  // The three used the hour's places: the other endpoint's is refused for that, and not sent.
  const limited = await retryFailing('other', { dry_run: false });
  expect(limited).toMatchObject({ resends_left_this_hour: 0, retried: [] });
  expect(limited.not_retried).toEqual([
    expect.objectContaining({ delivery_id: otherId, reason: 'hourly_limit', retry_after_seconds: expect.any(Number) }),
  ]);

  // Each of the three was attempted once more as a retry now; the other endpoint's was not.
  await waitFor(
    async () => {
      const retried = await Promise.all(mainIds.map(async (id) => (await detail(id)).attempts.some((a) => a.trigger === 'RETRY_NOW')));
      return retried.every(Boolean) || undefined;
    },
    'a RETRY_NOW attempt of each of the three in the log',
    60_000,
  );
  const sent = main.requests.filter((r) => r.at >= sentAt).map((r) => r.headers['x-hookstream-delivery-id']);
  expect([...sent].sort()).toEqual([...mainIds].sort());
  expect(other.requests.filter((r) => r.at >= sentAt)).toEqual([]);
  expect((await detail(otherId)).attempts.map((a) => a.trigger)).not.toContain('RETRY_NOW');
}, 180_000);
