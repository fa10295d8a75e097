/**
 * The dashboard and the alert rules against a real Prometheus (Debian's package, from the project's
 * cache) scraping the four services on the shared stack. After traffic of every kind the panels
 * show (webhooks, a replay, a conflict, refusals, policy events, callbacks that fail into the DLQ,
 * an event for an unknown partner), every PromQL expression of ops/grafana/dashboards/hookstream.json
 * and of ops/prometheus/rules/hookstream.rules.yml, read from the files, runs without error and has
 * data. A new panel or alert is checked without touching this test.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCacheDir, ensurePrometheus } from '@hookstream/cli/stack';
import { waitFor } from './helpers/infrastructure';
import { postWebhook, webhook } from './helpers/ingress';
import { policyEvent } from './helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from './helpers/outbound-fixture';
import { startPrometheus, type RunningPrometheus } from './helpers/prometheus';
import {
  RULES_FILE,
  alertRules,
  alertSignal,
  dashboardExpressions,
  dashboardVariables,
  substituteVariables,
} from './helpers/promql-sources';
import { freshStateDatabase, stopStateServer, type StateDatabase } from './helpers/state-database';

/**
 * Expressions that may legitimately have no data after this short run, by where they are written,
 * with the reason. Keep it short: an entry here is an expression the test cannot vouch for.
 */
const MAY_HAVE_NO_DATA: Record<string, string> = {};

let outbound: OutboundFixture;
let prometheus: RunningPrometheus;
let partnerId: string;
let documentHost: Server;
const documentsDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-prometheus-documents-'));
let deliveryLogDatabase: StateDatabase | undefined;
let trafficDoneAt = 0;
const setupStarted = Date.now();

beforeAll(async () => {
  const binaries = await ensurePrometheus(defaultCacheDir());
  outbound = await OutboundFixture.open('prometheus', {
    // Failing callbacks reach the DLQ within seconds, and their failed retries open the partner's
    // circuit for a second (the circuit's gauge has a series once its state has changed).
    retryDelaysMs: retryTierDelays(300),
    breaker: { failures: 3, openMs: 1000 },
    env: { CONSUMER_LAG_INTERVAL_MS: '1000' },
  });
  const receiver = await outbound.receiver((request) => (request.raw.toString().includes('FAIL') ? 500 : 200));
  partnerId = uniquePartnerId('prom');
  const apiKey = await outbound.partners.create(partnerId, {
    callback_endpoints: [{ url: `${receiver.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  // A document host: /ok.pdf is a document, anything else is not found (a failure recorded at once).
  documentHost = createServer((request, response) => {
    if (request.url === '/ok.pdf') response.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7 test');
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => documentHost.listen(0, '127.0.0.1', resolve));
  const documentsUrl = `http://127.0.0.1:${(documentHost.address() as { port: number }).port}`;
  const [ingress, consumer, sender, fetcher, deliveryLog] = await Promise.all([
    outbound.startIngress(),
    outbound.startConsumer(),
    outbound.startSender(),
    outbound.startFetcher({ DOCUMENT_STORAGE_DIR: documentsDir }),
    outbound.startDeliveryLog({ DELIVERY_LOG_DATABASE_URL: (deliveryLogDatabase = await freshStateDatabase()).url }),
  ]);
  prometheus = await startPrometheus({
    executable: binaries.prometheus,
    ruleFiles: [RULES_FILE],
    targets: [
      { service: 'ingress', url: ingress.opsUrl },
      { service: 'policy-status-consumer', url: consumer.opsUrl },
      { service: 'callback-sender', url: sender.opsUrl },
      { service: 'document-fetcher', url: fetcher.opsUrl },
      { service: 'delivery-log', url: deliveryLog.opsUrl },
    ],
  });

  // Inbound: accepted webhooks, a replay (same request, same body), a conflict (same request_id,
  // another body), an unknown key and an invalid body.
  for (let i = 0; i < 10; i++) expect((await postWebhook(ingress.webhookUrl, apiKey, webhook())).status).toBe(200);
  const once = webhook();
  expect((await postWebhook(ingress.webhookUrl, apiKey, once)).status).toBe(200);
  expect((await postWebhook(ingress.webhookUrl, apiKey, once)).status).toBe(200);
  expect((await postWebhook(ingress.webhookUrl, apiKey, { ...once, status: 'POLICY_CANCELLED' })).status).toBe(409);
  expect((await postWebhook(ingress.webhookUrl, `hsk_${'a'.repeat(43)}`, webhook())).status).toBe(401);
  expect((await postWebhook(ingress.webhookUrl, apiKey, { request_id: 'incomplete' })).status).toBe(400);
  // Documents: one stored, one the host does not have.
  const documents = [
    { type: 'POLICY_CERTIFICATE', url: `${documentsUrl}/ok.pdf`, filename: 'ok.pdf' },
    { type: 'CLAIM_DOCUMENT', url: `${documentsUrl}/missing.pdf`, filename: 'missing.pdf' },
  ];
  expect((await postWebhook(ingress.webhookUrl, apiKey, webhook({ documents }))).status).toBe(200);

  // Outbound: callbacks delivered, callbacks the partner fails until they are dead-lettered, and an
  // event for a partner nobody onboarded (policy-status-dlq).
  const failing = (n: number) => policyEvent(partnerId, {}, { policy_number: `POL-FAIL-${n}-${Date.now()}` });
  await outbound.events.publish([...Array.from({ length: 5 }, () => policyEvent(partnerId)), failing(1), failing(2)]);
  await outbound.events.publish([policyEvent(uniquePartnerId('nobody'))]);
  trafficDoneAt = Date.now();
}, 240_000);

afterAll(async () => {
  await prometheus?.stop();
  await outbound?.close();
  await new Promise((resolve) => documentHost?.close(resolve));
  rmSync(documentsDir, { recursive: true, force: true });
  await deliveryLogDatabase?.drop();
  await stopStateServer();
});

test('when Prometheus scrapes the services, then every target is up and every alert rule is evaluated without error', async () => {
  const targets = await waitFor(async () => {
    const { activeTargets } = await prometheus.api<{
      activeTargets: Array<{ labels: { service: string }; health: string; lastError: string }>;
    }>('/api/v1/targets');
    return activeTargets.length === 5 && activeTargets.every((t) => t.health === 'up') && activeTargets;
  }, 'every target to be scraped');
  expect(targets.map((t) => t.labels.service).sort()).toEqual([
    'callback-sender',
    'delivery-log',
    'document-fetcher',
    'ingress',
    'policy-status-consumer',
  ]);

  type RuleState = { name: string; health: string; lastError?: string };
  const rules = await waitFor(async () => {
    const { groups } = await prometheus.api<{ groups: Array<{ rules: RuleState[] }> }>('/api/v1/rules');
    const all = groups.flatMap((g) => g.rules);
    return all.length > 0 && all.every((r) => r.health !== 'unknown') && all;
  }, 'every rule to be evaluated');
  expect(rules.map((r) => r.name).sort()).toEqual(
    alertRules()
      .map((r) => r.alert)
      .sort(),
  );
  expect(rules.filter((r) => r.health !== 'ok')).toEqual([]);
});

test("when the dashboard's variables are filled, then the partner list has the test's partner", async () => {
  for (const variable of dashboardVariables()) {
    const values = await waitFor(async () => {
      const found = await prometheus.api<string[]>(
        `/api/v1/label/${variable.label}/values?match[]=${encodeURIComponent(variable.selector)}`,
      );
      return found.includes(partnerId) && found;
    }, `values of $${variable.name}`);
    expect(values).toContain(partnerId);
  }
});

test('when the services have had traffic, then every dashboard and alert expression runs without error and returns data', async () => {
  // Grafana's variables as a person would set them: this test's partner, and a rate window that
  // holds enough 1 s scrapes.
  const variables = { partner: partnerId, __rate_interval: '1m' };
  const checked = [
    ...dashboardExpressions().map((s) => ({ ...s, expr: substituteVariables(s.expr, variables), needsData: true })),
    // An alert's condition is empty while nothing is wrong; its signal must have data.
    ...alertRules().flatMap((rule) => [
      { where: `alert ${rule.alert}`, expr: rule.expr, needsData: false },
      { where: `alert ${rule.alert} (signal)`, expr: alertSignal(rule), needsData: true },
    ]),
  ];
  expect(checked.length).toBeGreaterThan(30);

  const answers = await Promise.all(checked.map(async (c) => ({ ...c, answer: await prometheus.query(c.expr) })));
  const failed = answers.filter((a) => a.answer.status !== 'success' || (a.answer.warnings?.length ?? 0) > 0);
  expect(failed.map((a) => ({ where: a.where, expr: a.expr, error: a.answer.error, warnings: a.answer.warnings }))).toEqual([]);

  const mustHaveData = checked.filter((c) => c.needsData && !(c.where in MAY_HAVE_NO_DATA));
  let empty: Array<{ where: string; expr: string }> = [];
  await waitFor(
    async () => {
      const results = await Promise.all(mustHaveData.map(async (c) => ({ ...c, answer: await prometheus.query(c.expr) })));
      empty = results.filter((r) => (r.answer.data?.result.length ?? 0) === 0).map(({ where, expr }) => ({ where, expr }));
      return empty.length === 0;
    },
    'every expression to have data',
    120_000,
  ).catch(() => undefined);
  expect(empty).toEqual([]);
  console.log(
    `prometheus-queries: ${checked.length} expressions (${mustHaveData.length} with data) passed ` +
      `${((Date.now() - trafficDoneAt) / 1000).toFixed(1)} s after the traffic; setup took ${((trafficDoneAt - setupStarted) / 1000).toFixed(1)} s`,
  );
}, 180_000);
