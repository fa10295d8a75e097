/**
 * The services with a public API (the ingress, the delivery log) as real processes: their API's
 * port answers 404 for /metrics, /healthz and /readyz, and their ops port serves those (with the
 * partners' labels on the metrics) and nothing of the API. Whoever reaches a webhook URL must not
 * read every partner's request counts.
 */
import { OutboundFixture } from './helpers/outbound-fixture';
import { postWebhook, webhook, type RunningIngress } from './helpers/ingress';
import type { RunningService } from './helpers/outbound';
import { freshStateDatabase, stopStateServer, type StateDatabase } from './helpers/state-database';

const OPS_PATHS = ['/metrics', '/healthz', '/readyz'];

let fixture: OutboundFixture;
let logDatabase: StateDatabase | undefined;
let ingress: RunningIngress;
let deliveryLog: RunningService;

beforeAll(async () => {
  fixture = await OutboundFixture.open('ops-port');
  logDatabase = await freshStateDatabase();
  [ingress, deliveryLog] = await Promise.all([
    fixture.startIngress(),
    fixture.startDeliveryLog({ DELIVERY_LOG_DATABASE_URL: logDatabase.url }),
  ]);
});

afterAll(async () => {
  await fixture?.close();
  await logDatabase?.drop();
  await stopStateServer();
});

describe.each([
  ['ingress', () => ingress],
  ['delivery-log', () => deliveryLog],
])('the %s', (service, running) => {
  test('when its API port is asked for an ops route, then it answers 404; when its ops port is, then 200', async () => {
    const { url, opsUrl } = running();
    expect(opsUrl).not.toBe(url);
    for (const opsPath of OPS_PATHS) {
      const onApi = await fetch(`${url}${opsPath}`);
      expect([opsPath, onApi.status]).toEqual([opsPath, 404]);
      expect(await onApi.text()).not.toContain('process_cpu_seconds_total');
      expect([opsPath, (await fetch(`${opsUrl}${opsPath}`)).status]).toEqual([opsPath, 200]);
    }
    expect(await (await fetch(`${opsUrl}/metrics`)).text()).toMatch(new RegExp(`process_cpu_seconds_total\\{service="${service}"\\} \\d`));
  });
});

test('when a webhook has been answered, then its partner-labelled count is on the ingress ops port, and the ops port serves no webhook', async () => {
  expect((await postWebhook(ingress.webhookUrl, `hsk_${'a'.repeat(43)}`, webhook())).status).toBe(401);
  const metrics = await (await fetch(`${ingress.opsUrl}/metrics`)).text();
  expect(metrics).toMatch(/hookstream_ingress_requests_total\{partner="unknown",status_code="401",[^}]*\} [1-9]/);
  const onOps = await postWebhook(`${ingress.opsUrl}/api/integration/partner/webhook`, `hsk_${'a'.repeat(43)}`, webhook());
  expect(onOps.status).toBe(404);
  expect(onOps.json).toEqual({ error: 'not found' });
});
