/**
 * Retry now pressed twenty times at once sends the callback once, on the real pipeline (Kafka, the
 * consumer, the sender, the delivery log on a PostgreSQL database of its own): a failing delivery,
 * its endpoint fixed, twenty concurrent POST …/retry: one is accepted (202), the nineteen others
 * are refused with 409 and the reason (a retry now of it is in flight), one of the partner's hourly
 * places is used, and the partner's endpoint gets the delivery once, counted until the retry that
 * was waiting in its tier has come due and sent nothing (ALREADY_DELIVERED), long after any
 * duplicate would have come. Before the claim every press answered 202 and sent it once more.
 */
import { Client } from 'pg';
import { OutboundFixture, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, policyEvent, startService, type Receiver, type RunningService } from '../../../test/helpers/outbound';
import { waitFor } from '../../../test/helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';
import { ApiClient } from './support/api-client';

/** Tier 1 long enough to retry now before it is due; the others longer than the test. */
const DELAYS = [20_000, ...Array<number>(7).fill(600_000)];
const PRESSES = 20;

interface Delivery {
  delivery_id: string;
  state: string;
  attempts: Array<{ attempt: number; outcome: string; trigger: string | null }>;
  timeline: Array<{ name: string; at: string }>;
}

const partnerId = uniquePartnerId('retry-once');
let fixture: OutboundFixture;
let receiver: Receiver;
let log: RunningService;
let logDatabase: StateDatabase;
let api: ApiClient;
let asPartner: Record<string, string>;
let fixed = false;

beforeAll(async () => {
  fixture = await OutboundFixture.open('retry-now-once', { retryDelaysMs: DELAYS, breaker: { failures: 1000, openMs: 100 } });
  receiver = await fixture.receiver(() => (fixed ? 200 : 503));
  asPartner = {
    'x-api-key': await fixture.partners.create(partnerId, {
      callback_endpoints: [{ endpoint_id: 'main', url: receiver.url }],
      outbound_auth: { method: 'API_KEY', api_key: 'k' },
    }),
  };
  logDatabase = await freshStateDatabase();
  [log] = await Promise.all([
    startService(DELIVERY_LOG_ENTRY, fixture.prefix, { ...fixture.env, DELIVERY_LOG_DATABASE_URL: logDatabase.url, HTTP_PORT: '0' }),
    fixture.startConsumer(),
    fixture.startSender(),
  ]);
  api = await ApiClient.open(log.url);
}, 180_000);

afterAll(async () => {
  await log?.stop();
  await fixture?.close();
  await logDatabase?.drop();
  await stopStateServer();
});

const detail = async (id: string) => ((await api.get(`/api/portal/v1/deliveries/${id}`, asPartner)).json as { data: Delivery }).data;

test('twenty retries now of one failing delivery at once: one 202, nineteen 409, one place used, one callback at the partner', async () => {
  await fixture.events.publish([policyEvent(partnerId, {}, { policy_number: 'P-TWICE-1' })]);
  const { delivery_id: id } = await waitFor(
    async () => {
      const page = (await api.get('/api/portal/v1/deliveries?policy_number=P-TWICE-1', asPartner)).json as { data: Delivery[] };
      return page.data.find((d) => d.state === 'failing');
    },
    'P-TWICE-1 failing in the log',
    60_000,
  );

  fixed = true;
  const fixedAt = Date.now();
  const answers = await Promise.all(
    Array.from({ length: PRESSES }, () => api.post(`/api/portal/v1/deliveries/${id}/retry`, asPartner, { reason: 'endpoint fixed' })),
  );
  expect(answers.map((a) => a.status).sort()).toEqual([202, ...Array<number>(PRESSES - 1).fill(409)]);
  for (const refused of answers.filter((a) => a.status === 409)) {
    expect(refused.json).toMatchObject({
      error_code: 'CONFLICT_ERR',
      message: expect.stringMatching(/^a retry now of this delivery is in flight/),
    });
  }

  // The retry that waited in tier 1 comes due after the retry now was delivered and sends nothing:
  // by then any duplicate of the retry now (they came within a second) would have reached the endpoint.
  const done = await waitFor(
    async () => {
      const d = await detail(id);
      return d.attempts.some((a) => a.outcome === 'ALREADY_DELIVERED') ? d : undefined;
    },
    'the tier retry of P-TWICE-1 ALREADY_DELIVERED in the log',
    60_000,
  );
  expect(done.state).toBe('delivered');
  expect(done.attempts.filter((a) => a.outcome === 'DELIVERED')).toEqual([expect.objectContaining({ trigger: 'RETRY_NOW' })]);
  const afterFix = receiver.requests.filter((r) => r.at >= fixedAt && r.headers['x-hookstream-delivery-id'] === id);
  expect(afterFix).toHaveLength(1);
  // Its timeline: the retry now asked (once) when it was pressed, before its send; the tier's wait after.
  expect(done.timeline.map((s) => s.name)).toEqual([
    'published',
    'fanned_out',
    'attempt_sent',
    'attempt_answered',
    'retried_now',
    'attempt_sent',
    'delivered',
    'waited_in_tier',
    'already_delivered',
  ]);
  const asked = Date.parse(done.timeline[4]!.at);
  expect(asked).toBeGreaterThanOrEqual(fixedAt);
  expect(asked).toBeLessThanOrEqual(afterFix[0]!.at);

  const db = new Client({ connectionString: logDatabase.url });
  await db.connect();
  try {
    const { rows } = await db.query<{ taken: string }>('select count(*) as taken from resend_reservations where partner_id = $1', [
      partnerId,
    ]);
    expect(Number(rows[0]!.taken)).toBe(1);
  } finally {
    await db.end();
  }

  // Pressed again once delivered: refused as before, for what it is.
  const again = await api.post(`/api/portal/v1/deliveries/${id}/retry`, asPartner, {});
  expect([again.status, (again.json as { message: string }).message]).toEqual([
    409,
    'only a failing delivery can be retried now; this one is delivered',
  ]);
}, 180_000);
