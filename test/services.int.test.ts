/**
 * The three services as real processes (compiled code, as deployed): they start against the
 * real broker and registry, serve /healthz, /readyz and /metrics (the ingress on its ops port), stop cleanly on SIGTERM,
 * and refuse a bad environment with a clear message and a non-zero exit.
 */
import path from 'node:path';
import { testInfrastructure, uniqueName, waitFor } from './helpers/infrastructure';
import { REPO_ROOT, runCli, runNode, spawnService, type RunningService } from './helpers/processes';

const services = ['ingress', 'policy-status-consumer', 'callback-sender'] as const;
const entry = (service: string) => path.join(REPO_ROOT, 'services', service, 'dist', 'main.js');

const prefix = `${uniqueName('services')}.`;

/**
 * Starts `service` on `topicPrefix`'s topics and resolves once it says where it listens (not yet
 * ready, maybe): `url` where it said, `opsUrl` where its ops routes answer.
 */
async function listening(service: string, topicPrefix: string): Promise<{ run: RunningService; url: string; opsUrl: string }> {
  const run = await spawnService(entry(service), { ...process.env, TOPIC_PREFIX: topicPrefix, LOG_LEVEL: 'info' });
  const url = await waitFor(() => /"url":"(http:\/\/[^"]+)"/.exec(run.output())?.[1], `${service} to listen`, 60_000).catch(
    async (error: unknown) => {
      await run.stop('SIGKILL');
      throw error;
    },
  );
  return { run, url, opsUrl: run.opsUrl };
}

beforeAll(async () => {
  testInfrastructure();
  const ensured = await runCli(['topics', 'ensure', '--no-schemas'], {
    env: { ...process.env, TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: '1' },
  });
  if (ensured.code !== 0) throw new Error(`topics ensure exited ${ensured.code}: ${ensured.stderr}`);
});

describe.each(services)('the %s service', (service) => {
  test('when started, then it is alive and ready (Kafka, registry, partner-config loaded), serves Prometheus metrics, and on SIGTERM exits 0', async () => {
    const { run, opsUrl: url } = await listening(service, prefix);
    try {
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'alive' });

      const ready = await waitFor(async () => {
        const response = await fetch(`${url}/readyz`);
        return response.status === 200 ? ((await response.json()) as { checks: Record<string, { ok: boolean }> }) : undefined;
      }, 'readiness');
      expect(ready.checks).toEqual({
        draining: { ok: true },
        kafka: { ok: true },
        'schema-registry': { ok: true },
        'partner-config': { ok: true },
        // Each service's own work is ready too: the ingress's request_id ledger and its store, the consumers.
        ...{
          ingress: { 'idempotency-ledger': { ok: true }, 'state-store': { ok: true } },
          'policy-status-consumer': { 'policy-status-processor': { ok: true } },
          'callback-sender': { 'latest-versions': { ok: true }, 'state-store': { ok: true }, 'callback-consumer': { ok: true } },
        }[service],
      });

      const metrics = await fetch(`${url}/metrics`);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await metrics.text();
      expect(text).toMatch(new RegExp(`process_cpu_seconds_total\\{service="${service}"\\} \\d`));
      expect(text).toContain('nodejs_eventloop_lag_seconds');

      await run.stop('SIGTERM');
      expect((await run.ended).code).toBe(0);
      expect(run.output()).toContain('shutdown complete');
      // Every line is JSON (no raw warnings or stack traces on the console).
      for (const line of run.output().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      await run.stop('SIGKILL');
    }
  });

  test('when SCHEMA_REGISTRY_URL is malformed and KAFKA_BROKERS missing, then it exits 2 naming both, without a stack trace', async () => {
    const result = await runNode([entry(service)], { env: { PATH: process.env.PATH ?? '', SCHEMA_REGISTRY_URL: 'not a url' } });
    expect(result.code).toBe(2);
    const line = JSON.parse(result.stderr.trim()) as { level: string; msg: string };
    expect(line.level).toBe('fatal');
    expect(line.msg).toContain('KAFKA_BROKERS: is required but not set');
    expect(line.msg).toContain('SCHEMA_REGISTRY_URL: must be an absolute URL');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a service whose partner-config topic does not exist yet', () => {
  test('when started, then it is alive but not ready, and becomes ready once the topic appears', async () => {
    const lonely = `${uniqueName('no-topics')}.`;
    const { run, opsUrl: url } = await listening('callback-sender', lonely);
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const notReady = await fetch(`${url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toMatchObject({ status: 'not_ready', checks: { 'partner-config': { ok: false } } });

      expect(
        (await runCli(['topics', 'ensure', '--no-schemas'], { env: { ...process.env, TOPIC_PREFIX: lonely, TOPIC_PARTITIONS: '1' } })).code,
      ).toBe(0);
      await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 'readiness after the topic appears', 30_000);
    } finally {
      await run.stop('SIGKILL');
    }
  });
});

describe('an ingress that has not loaded partners yet', () => {
  test('when a webhook arrives, then it answers a retryable 503 in the contract body, not a 401 or a 500', async () => {
    const { run, url } = await listening('ingress', `${uniqueName('no-topics')}.`);
    try {
      const response = await fetch(`${url}/api/integration/partner/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': `hsk_${'a'.repeat(43)}` },
        body: '{}',
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('2');
      expect(await response.json()).toEqual({
        status: 'failed',
        data: null,
        message: 'the service is starting; retry later',
        code: 503,
        error_code: 'SERVICE_UNAVAILABLE_ERR',
      });
    } finally {
      await run.stop('SIGKILL');
    }
  });
});
