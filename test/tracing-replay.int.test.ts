/**
 * A dead letter's replay stays in the trace of the policy event it came from, as Jaeger (the local
 * stack's trace store) keeps it: policy-status record → fan-out → callback-requests → each attempt
 * → every retry tier → the attempt that dead-letters it → `hookstream dlq replay` → the replayed
 * attempt the partner answers 200, all under the core system's trace id (docs/tracing.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { defaultCacheDir, ensureJaeger, startJaeger, type RunningJaeger } from '@hookstream/cli/stack';
import { waitFor } from './helpers/infrastructure';
import { policyEvent } from './helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from './helpers/outbound-fixture';
import { runCli } from './helpers/processes';

/** A trace as Jaeger's query API gives it (GET /api/traces/{id}), cut to what the test reads. */
interface JaegerTrace {
  spans: Array<{ operationName: string; processID: string; tags: Array<{ key: string; value: unknown }> }>;
  processes: Record<string, { serviceName: string }>;
}
type JaegerSpan = JaegerTrace['spans'][number];

const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-tracing-replay-'));
let jaeger: RunningJaeger;
let fixture: OutboundFixture;
/** While true the partner answers 500 to every callback. */
let broken = true;

beforeAll(async () => {
  const built = await ensureJaeger(defaultCacheDir());
  if (!built) throw new Error('Go is not on PATH: this test needs Jaeger, built from its Go module (docs/tracing.md)');
  jaeger = await startJaeger({ binary: built.binary, dir: path.join(dir, 'jaeger') });
  fixture = await OutboundFixture.open('trace-replay', {
    // The shortest tiers: nine attempts over the eight tiers take about two seconds.
    retryDelaysMs: retryTierDelays(200),
    // Failing on purpose must not open the partner's circuit: the dead letter would say CIRCUIT_OPEN.
    breaker: { failures: 10_000, openMs: 500 },
    // Spans leave each service within 200 ms rather than 5 s.
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpUrl, OTEL_BSP_SCHEDULE_DELAY: '200' },
  });
  await Promise.all([fixture.startConsumer(), fixture.startSender()]);
}, 240_000);

afterAll(async () => {
  await fixture?.close();
  await jaeger?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function traceById(id: string): Promise<JaegerTrace | undefined> {
  const response = await fetch(`${jaeger.uiUrl}/api/traces/${id}`);
  if (response.status === 404) return undefined;
  return ((await response.json()) as { data: JaegerTrace[] }).data[0];
}

const tag = (span: JaegerSpan, key: string) => span.tags.find((t) => t.key === key)?.value;
const serviceOf = (trace: JaegerTrace, span: JaegerSpan) => trace.processes[span.processID]!.serviceName;
/** Each `callback.attempt` span as [attempt, tier, outcome]. */
const attemptsOf = (trace: JaegerTrace | undefined) =>
  (trace?.spans ?? [])
    .filter((span) => span.operationName === 'callback.attempt')
    .map((span) => [tag(span, 'hookstream.attempt'), tag(span, 'hookstream.tier'), tag(span, 'hookstream.outcome')]);

/** Runs `hookstream dlq …` on the fixture's topics and parses its --json answer. */
async function dlq<T>(args: string[]): Promise<T> {
  const result = await runCli(['dlq', ...args, '--json'], {
    env: { ...process.env, ...fixture.env, TOPIC_PREFIX: fixture.prefix },
    timeoutMs: 180_000,
  });
  if (result.code !== 0) throw new Error(`hookstream dlq ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

test('when a callback is dead-lettered and an operator replays it, then the replayed attempt is in the trace of the policy event with every attempt and tier before it', async () => {
  const receiver = await fixture.receiver(() => (broken ? 500 : 200));
  const partnerId = uniquePartnerId('trace-replay');
  await fixture.onboard(partnerId, { url: `${receiver.url}/cb`, timeout_ms: 2000 });
  const traceId = randomBytes(16).toString('hex');
  await fixture.events.publish([policyEvent(partnerId)], { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });

  // Nine attempts (the first and one per tier), then the dead letter.
  await waitFor(() => receiver.requests.length === 9, 'the nine failed attempts at the partner', 90_000);
  const [letter] = await waitFor(
    async () => {
      const listing = await dlq<{ dead_letters: Array<{ delivery_id: string; attempts: number }> }>(['list', '--partner', partnerId]);
      return listing.dead_letters.length === 1 && listing.dead_letters;
    },
    'the dead letter',
    90_000,
  );
  expect(letter!.attempts).toBe(9);
  const deliveryId = letter!.delivery_id;

  broken = false;
  const replay = await dlq<{ counts: { replayed: number } }>(['replay', '--partner', partnerId, '--reason', 'partner fixed', '--yes']);
  expect(replay.counts.replayed).toBe(1);
  await waitFor(async () => receiver.requests.length === 10, 'the replayed callback at the partner', 60_000);

  const failed = Array.from({ length: 9 }, (_, i) => [i + 1, i, i === 8 ? 'dead-letter' : 'retry']);
  const expected = [...failed, [1, 0, 'delivered']];
  const sorted = (rows: unknown[][]) => rows.map((row) => JSON.stringify(row)).sort();
  const trace = await waitFor(
    async () => {
      const found = await traceById(traceId);
      return found && sorted(attemptsOf(found)).join() === sorted(expected).join() ? found : undefined;
    },
    `the trace holding the nine failed attempts and the replayed one`,
    60_000,
  ).catch(async (error: unknown) => {
    throw new Error(`${(error as Error).message}; it holds attempts ${JSON.stringify(attemptsOf(await traceById(traceId)))}`);
  });

  const names = trace.spans.map((span) => `${serviceOf(trace, span)}: ${span.operationName}`);
  expect(names).toContain('policy-status-consumer: policy.fan_out');
  // The first attempt and the replayed one are read from callback-requests; the others from their tier.
  expect(names.filter((name) => name === `callback-sender: process ${fixture.prefix}callback-requests`)).toHaveLength(2);
  for (let tier = 1; tier <= 8; tier++) expect(names).toContain(`callback-sender: process ${fixture.prefix}callback-retry-${tier}`);
  const attempts = trace.spans.filter((span) => span.operationName === 'callback.attempt');
  for (const attempt of attempts) {
    expect(attempt.tags).toEqual(
      expect.arrayContaining([
        { key: 'hookstream.delivery_id', type: 'string', value: deliveryId },
        { key: 'hookstream.partner_id', type: 'string', value: partnerId },
      ]),
    );
  }
  const replayed = attempts.find((span) => tag(span, 'hookstream.outcome') === 'delivered')!;
  expect(tag(replayed, 'http.response.status_code')).toBe(200);
}, 240_000);
