/*
 * What every service's main.ts stands on, on a real broker and registry: /readyz names what holds
 * a service back and turns ready only once its background parts have started (a failed start is
 * stopped and tried again), a monitor never holds it back, a shutdown marks it draining before
 * any step runs, the ops routes stay off the public port, and what no route answers (or a route
 * that throws) gets JSON without a stack.
 */
import { serviceSchemaWithOpsPort } from '@hookstream/runtime';
import { TopicNames, topicCatalogue } from '@hookstream/kafka';
import { createServiceRuntime } from '../src';
import type { ServiceListeners, ServiceRuntime } from '../src/service-runtime';
import { createTopics, testInfrastructure, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';

const prefix = `${uniqueName('svc')}.`;
let runtime: ServiceRuntime<unknown>;
let listeners: ServiceListeners;
const starts = { tries: 0, stops: 0 };

async function readiness(): Promise<{ status: number; body: { status: string; checks: Record<string, { ok: boolean }> } }> {
  const response = await fetch(`${listeners.ops.url}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, { ok: boolean }> } };
}

beforeAll(async () => {
  const { brokers, registryUrl } = testInfrastructure();
  const partnerConfig = topicCatalogue({ prefix }).find((t) => t.name === TopicNames.partnerConfig)!;
  await createTopics(testKafka(), [{ topic: partnerConfig.topic, config: { 'cleanup.policy': 'compact' } }]);
  runtime = await createServiceRuntime({
    service: 'service-runtime-test',
    configSchema: serviceSchemaWithOpsPort(0, 0),
    topics: [],
    env: {
      KAFKA_BROKERS: brokers.join(','),
      SCHEMA_REGISTRY_URL: registryUrl,
      TOPIC_PREFIX: prefix,
      HTTP_PORT: '0',
      OPS_PORT: '0',
      LOG_LEVEL: 'silent',
    },
  });
  // A part that cannot start the first two times (its dependency is not there yet), then can.
  runtime.startInBackground('flaky-part', {
    start: async () => {
      if (++starts.tries <= 2) throw new Error('not there yet');
    },
    stop: async () => void starts.stops++,
  });
  runtime.startMonitor('never-starts', {
    start: () => Promise.reject(new Error('a watcher that cannot start')),
    stop: async () => undefined,
  });
  runtime.app.get('/throws', () => {
    throw new Error('secret detail at /srv/app.js:12');
  });
  listeners = await runtime.listen();
}, 60_000);

afterAll(async () => {
  await runtime?.shutdown.stop();
});

test('/readyz names the part not started yet, then turns ready once it started on its third try (stopped after each failed one); a monitor never holds it back', async () => {
  const first = await readiness();
  if (first.status === 503) expect(first.body.status).toBe('not_ready');
  const ready = await waitFor(async () => {
    const now = await readiness();
    return now.status === 200 ? now : undefined;
  }, 'the service ready');
  expect(ready.body.status).toBe('ready');
  expect(starts.tries).toBe(3);
  expect(starts.stops).toBe(2);
  expect(Object.keys(ready.body.checks)).toEqual(
    expect.arrayContaining(['flaky-part', 'partner-config', 'kafka', 'schema-registry', 'draining']),
  );
  expect(ready.body.checks).not.toHaveProperty('never-starts');
}, 60_000);

test('the ops routes answer on the ops port only; the public port answers JSON 404 for them and JSON 500 without a stack for a route that throws', async () => {
  expect((await fetch(`${listeners.ops.url}/metrics`)).status).toBe(200);
  const notFound = await fetch(`${listeners.url}/metrics`);
  expect(notFound.status).toBe(404);
  expect(await notFound.json()).toEqual({ error: 'not found' });
  const thrown = await fetch(`${listeners.url}/throws`);
  expect(thrown.status).toBe(500);
  const text = await thrown.text();
  expect(JSON.parse(text)).toEqual({ error: 'internal error' });
  expect(text).not.toMatch(/secret detail|app\.js|at /);
});

test('a shutdown marks the service draining before its steps run: /readyz answers 503 naming draining', async () => {
  let seenWhileStopping: Awaited<ReturnType<typeof readiness>> | undefined;
  // Registered last in the first phase, so it runs first (a phase's steps run last registered first).
  runtime.shutdown.onStop('probe', async () => void (seenWhileStopping = await readiness()), 'requests');
  await runtime.shutdown.stop();
  expect(seenWhileStopping?.status).toBe(503);
  expect(seenWhileStopping?.body.checks.draining?.ok).toBe(false);
}, 30_000);
