/**
 * One trace per record across the services and the Kafka hops between them, as Jaeger (the local
 * stack's trace store, built once into the cache) keeps it: the five services run as processes
 * exporting to it over OTLP, and the test reads each trace back through Jaeger's HTTP API.
 *
 * - Inbound: a webhook's trace goes from the ingress (`webhook.accept`) over partner-events to the
 *   document-fetcher (`document.fetch`) and to the delivery log's projection of it.
 * - Outbound: a policy event sent with a core system's `traceparent` header stays in that trace
 *   through the policy-status-consumer (`policy.fan_out`), callback-requests and the
 *   callback-sender (`callback.attempt`) to the partner's HTTP answer.
 * - The delivery log keeps each trace id, and the console (in Chromium) shows it: with a link to
 *   Jaeger's page of the trace for an operator, without one for the partner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { defaultCacheDir, ensureJaeger, startJaeger, type RunningJaeger } from '@hookstream/cli/stack';
import { parsePolicyEventJson } from '@hookstream/contract';
import { AvroCodec, defaultSchemasDir, topicCatalogue } from '@hookstream/kafka';
import { startDocumentHost, type DocumentHost } from './helpers/document-host';
import { testInfrastructure, waitFor } from './helpers/infrastructure';
import { postWebhook, webhook } from './helpers/ingress';
import { policyEvent } from './helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from './helpers/outbound-fixture';
import { freshStateDatabase, stopStateServer, type StateDatabase } from './helpers/state-database';
import type { Locator } from 'playwright-core';
import { openBrowser, type TestBrowser } from './helpers/browser';
import { runCli } from './helpers/processes';

/** A trace as Jaeger's query API gives it (GET /api/traces/{id}), cut to what the test reads. */
interface JaegerTrace {
  traceID: string;
  spans: Array<{ spanID: string; operationName: string; processID: string; tags: Array<{ key: string; value: unknown }> }>;
  processes: Record<string, { serviceName: string }>;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-tracing-'));
let jaeger: RunningJaeger;
let fixture: OutboundFixture;
let documents: DocumentHost;
let deliveryLogDatabase: StateDatabase | undefined;
let apiKey: string;
let partnerId: string;
let webhookUrl: string;
let logUrl: string;
let browser: TestBrowser;
/** The delivery of the policy event the second test traced, once it has. */
let traced: { deliveryId: string; traceId: string } | undefined;

/** What the partner API answers at `url` (the partner's own key), once `accept` takes it. */
function partnerRead<T>(url: string, accept: (data: T) => boolean, what: string): Promise<T> {
  return waitFor(
    async () => {
      const response = await fetch(`${logUrl}${url}`, { headers: { 'x-api-key': apiKey } });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
      const { data } = (await response.json()) as { data: T };
      return accept(data) ? data : undefined;
    },
    what,
    60_000,
  );
}

async function traceById(id: string): Promise<JaegerTrace | undefined> {
  const response = await fetch(`${jaeger.uiUrl}/api/traces/${id}`);
  if (response.status === 404) return undefined;
  return ((await response.json()) as { data: JaegerTrace[] }).data[0];
}

/** Each span of `trace` as "service: operation". */
const steps = (trace: JaegerTrace | undefined) =>
  (trace?.spans ?? []).map((span) => `${trace!.processes[span.processID]!.serviceName}: ${span.operationName}`);

/** `trace` once it holds every one of `expected` (spans reach Jaeger in batches, service by service). */
function traceHolding(id: () => Promise<string | undefined>, expected: string[]): Promise<JaegerTrace> {
  return waitFor(
    async () => {
      const traceId = await id();
      const trace = traceId ? await traceById(traceId) : undefined;
      return trace && expected.every((step) => steps(trace).includes(step)) ? trace : undefined;
    },
    `a trace holding ${expected.join(', ')}`,
    60_000,
  ).catch(async (error: unknown) => {
    const traceId = await id();
    throw new Error(`${(error as Error).message}; it holds: ${steps(traceId ? await traceById(traceId) : undefined).join(' | ')}`);
  });
}

beforeAll(async () => {
  const built = await ensureJaeger(defaultCacheDir());
  if (!built) throw new Error('Go is not on PATH: this test needs Jaeger, built from its Go module (docs/tracing.md)');
  jaeger = await startJaeger({ binary: built.binary, dir: path.join(dir, 'jaeger') });
  fixture = await OutboundFixture.open('tracing', {
    // The callback's first attempt fails: its retry comes from the first tier half a second later
    // (the breaker's open time must be shorter than the tiers' delays together; one failure never opens it).
    retryDelaysMs: retryTierDelays(500),
    breaker: { failures: 100, openMs: 1000 },
    // Spans leave each service within 200 ms rather than 5 s.
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpUrl, OTEL_BSP_SCHEDULE_DELAY: '200' },
  });
  documents = await startDocumentHost();
  // The partner fails the first callback it gets (HTTP 500), then answers 200.
  const target = await fixture.receiver((_request, index) => (index === 0 ? 500 : 200));
  partnerId = uniquePartnerId('traced');
  apiKey = await fixture.partners.create(partnerId, {
    callback_endpoints: [{ url: `${target.url}/callbacks` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  deliveryLogDatabase = await freshStateDatabase();
  const [ingress, , , , log] = await Promise.all([
    fixture.startIngress(fixture.env),
    fixture.startConsumer(),
    fixture.startSender(),
    fixture.startFetcher({ DOCUMENT_STORAGE_DIR: path.join(dir, 'documents') }),
    fixture.startDeliveryLog({
      DELIVERY_LOG_DATABASE_URL: deliveryLogDatabase.url,
      DELIVERY_LOG_TRACE_URL: `${jaeger.uiUrl}/trace/{trace_id}`,
    }),
  ]);
  browser = await openBrowser();
  webhookUrl = ingress.webhookUrl;
  logUrl = log.url;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await fixture?.close();
  await jaeger?.stop();
  await documents?.close();
  await deliveryLogDatabase?.drop();
  await stopStateServer();
  rmSync(dir, { recursive: true, force: true });
});

test("when a webhook with a document is accepted, then one trace follows it from the ingress over partner-events to the document fetch and the delivery log's projection", async () => {
  const sent = webhook({ documents: documents.documents(1) });
  const posted = await postWebhook(webhookUrl, apiKey, sent);
  expect(posted.status).toBe(200);
  const prefix = fixture.prefix;
  const accepted = async () => {
    const response = await fetch(`${jaeger.uiUrl}/api/traces?service=ingress&operation=webhook.accept&limit=5`);
    return ((await response.json()) as { data: JaegerTrace[] }).data[0]?.traceID;
  };
  const trace = await traceHolding(accepted, [
    'ingress: webhook.accept',
    `document-fetcher: process ${prefix}partner-events`,
    'document-fetcher: document.fetch',
    `delivery-log: process ${prefix}partner-events`,
    'delivery-log: delivery_log.project',
  ]);
  // The ingress's HTTP server span is the trace's root; identifiers only on the domain spans, never the body.
  const accept = trace.spans.find((span) => span.operationName === 'webhook.accept')!;
  // Named by its route, with no span per express middleware or router (each cost every request CPU).
  const ingressSteps = steps(trace).filter((step) => step.startsWith('ingress: '));
  expect(ingressSteps).toContain('ingress: POST /api/integration/partner/webhook');
  expect(ingressSteps.filter((step) => /middleware|router|request handler/.test(step))).toEqual([]);
  expect(accept.tags).toEqual(expect.arrayContaining([{ key: 'hookstream.partner_id', type: 'string', value: partnerId }]));
  expect(JSON.stringify(trace)).not.toContain(apiKey);
  // The delivery log keeps the webhook's trace id: what its support desk opens the trace with.
  const [logged] = await partnerRead<Array<{ trace_id: string | null }>>(
    `/api/portal/v1/webhooks?request_id=${encodeURIComponent(sent.request_id as string)}`,
    (rows) => rows.length === 1,
    'the webhook in the delivery log',
  );
  expect(logged!.trace_id).toBe(trace.traceID);
}, 120_000);

test("when a policy event carries a core system's traceparent, then its trace goes on through the fan-out, callback-requests, each attempt and the retry tier to the partner's answers", async () => {
  const coreTraceId = randomBytes(16).toString('hex');
  const event = policyEvent(partnerId);
  const topic = topicCatalogue({ prefix: fixture.prefix }).find((t) => t.name === 'policy-status')!;
  const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  await codec.registerTopics([topic]);
  const producer = fixture.kafka.producer();
  await producer.connect();
  try {
    const traceparent = `00-${coreTraceId}-${randomBytes(8).toString('hex')}-01`;
    await producer.send({
      topic: topic.topic,
      messages: [
        { key: event.policy.policy_number, value: await codec.encode(topic.topic, parsePolicyEventJson(event)), headers: { traceparent } },
      ],
    });
  } finally {
    await producer.disconnect();
  }
  const trace = await traceHolding(
    async () => coreTraceId,
    [
      'policy-status-consumer: policy.fan_out',
      `callback-sender: process ${fixture.prefix}callback-requests`,
      'callback-sender: callback.attempt',
      'callback-sender: POST',
      `callback-sender: process ${fixture.prefix}callback-retry-1`,
    ],
  );
  const tag = (span: JaegerTrace['spans'][number], key: string) => span.tags.find((t) => t.key === key)?.value;
  const attempts = trace.spans.filter((span) => span.operationName === 'callback.attempt');
  const seen = attempts.map((span) => [tag(span, 'hookstream.attempt'), tag(span, 'hookstream.tier'), tag(span, 'hookstream.outcome')]);
  expect(seen.sort()).toEqual([
    [1, 0, 'retry'],
    [2, 1, 'delivered'],
  ]);
  for (const attempt of attempts) {
    expect(attempt.tags).toEqual(
      expect.arrayContaining([
        { key: 'hookstream.partner_id', type: 'string', value: partnerId },
        { key: 'hookstream.policy_number', type: 'string', value: event.policy.policy_number },
      ]),
    );
  }
  expect(attempts.map((span) => tag(span, 'http.response.status_code')).sort()).toEqual([200, 500]);
  // No span carries a credential header or a secret.
  const tagKeys = trace.spans.flatMap((span) => span.tags.map((tag) => tag.key));
  expect(tagKeys.filter((key) => /authorization|api.?key|secret|signature/i.test(key))).toEqual([]);
  // The delivery log keeps the core system's trace id on the delivery and on each of its attempts.
  const [listed] = await partnerRead<Array<{ delivery_id: string; state: string; trace_id: string | null }>>(
    `/api/portal/v1/deliveries?policy_number=${encodeURIComponent(event.policy.policy_number)}`,
    (rows) => rows[0]?.state === 'delivered',
    'the delivery delivered in the log',
  );
  expect(listed!.trace_id).toBe(coreTraceId);
  const detail = await partnerRead<{ attempts: Array<{ trace_id: string | null }> }>(
    `/api/portal/v1/deliveries/${listed!.delivery_id}`,
    (d) => d.attempts.length === 2,
    'both attempts in the log',
  );
  expect(detail.attempts.map((a) => a.trace_id)).toEqual([coreTraceId, coreTraceId]);
  traced = { deliveryId: listed!.delivery_id, traceId: coreTraceId };
}, 120_000);

/** The steps of a delivery that failed once and was delivered from tier 1, as the console words them. */
const FAILED_ONCE_STEPS = [
  'published',
  'made for this endpoint',
  'sent (attempt 1)',
  'answered, failed (attempt 1)',
  'waited for its retry (retry 1)',
  'sent (attempt 2, retry 1)',
  'delivered (attempt 2, retry 1)',
];

/** The step column of a timeline's table, each cell's text. */
const timelineSteps = async (timeline: Locator) =>
  (await timeline.locator('tbody tr td:first-child').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());

test("the console shows a delivery's timeline and trace id: an operator with a link to Jaeger's page of that trace, the partner without one", async () => {
  expect(traced).toBeDefined();
  const { deliveryId, traceId } = traced!;
  const created = await runCli(['operators', 'create', '--name', 'Tracy Tracer', '--role', 'viewer', '--json'], {
    env: { ...process.env, ...fixture.env, TOPIC_PREFIX: fixture.prefix },
  });
  expect(created.code).toBe(0);
  const operatorToken = (JSON.parse(created.stdout) as { token: string }).token;

  const operator = await browser.newPage(logUrl);
  await operator.page.goto('/console/');
  await operator.page.getByLabel('an operator (your operator token)').check();
  await operator.page.getByLabel('Operator token', { exact: true }).fill(operatorToken);
  await operator.page.getByRole('button', { name: 'Sign in' }).click();
  await operator.page.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await operator.page.goto(`/console/#/deliveries/${deliveryId}`);
  // The delivery's timeline, with the link to the same steps as spans beside it.
  const timeline = operator.page.getByRole('region', { name: 'Timeline' });
  const opened = timeline.getByRole('link', { name: 'open the trace' });
  await opened.waitFor();
  expect(await opened.getAttribute('href')).toBe(`${jaeger.uiUrl}/trace/${traceId}`);
  expect(await timelineSteps(timeline)).toEqual(FAILED_ONCE_STEPS);
  expect(await timeline.getByText(/^Published to delivered: \d/).count()).toBe(1);
  // Where it leads holds the trace.
  expect((await fetch(`${jaeger.uiUrl}/api/traces/${traceId}`)).status).toBe(200);
  operator.assertNoPageErrors();

  const partner = await browser.newPage(logUrl);
  await partner.page.goto('/console/');
  await partner.page.getByLabel('API key', { exact: true }).fill(apiKey);
  await partner.page.getByRole('button', { name: 'Sign in' }).click();
  await partner.page.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await partner.page.goto(`/console/#/deliveries/${deliveryId}`);
  const own = partner.page.getByRole('region', { name: 'Timeline' });
  await own.getByText(traceId, { exact: true }).waitFor();
  expect(await partner.page.getByRole('link', { name: 'open the trace' }).count()).toBe(0);
  expect(await timelineSteps(own)).toEqual(FAILED_ONCE_STEPS);
  partner.assertNoPageErrors();
}, 120_000);
