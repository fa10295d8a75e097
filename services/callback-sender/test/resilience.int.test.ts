import { testInfrastructure, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';
import { TestPartners, ensureTopics } from '../../../test/helpers/ingress';
import {
  CALLBACK_SENDER_ENTRY,
  POLICY_CONSUMER_ENTRY,
  PolicyEvents,
  policyEvent,
  readTopicUntil,
  startReceiver,
  startService,
  type Receiver,
  type RunningService,
} from '../../../test/helpers/outbound';

/**
 * Isolation between partners (circuit breaker, per-partner limits) and crash safety of the
 * sender (SIGKILL mid-run, two instances in one group), end to end on a real broker.
 */
const prefix = `${uniqueName('resilience')}.`;
const kafka = testKafka();
const env = {
  CALLBACK_RETRY_DELAYS_MS: '500,500,500,500,500,500,500,500',
  SSRF_ALLOW: '127.0.0.0/8',
  BREAKER_FAILURE_THRESHOLD: '3',
  BREAKER_OPEN_MS: '3000',
  SENDER_PARTNER_CONCURRENCY: '8',
};
let partners: TestPartners;
let events: PolicyEvents;
let consumer: RunningService;
const receivers: Receiver[] = [];
const senders: RunningService[] = [];

beforeAll(async () => {
  await ensureTopics(prefix);
  partners = new TestPartners(kafka, prefix, testInfrastructure().registryUrl);
  events = new PolicyEvents(kafka, prefix);
  consumer = await startService(POLICY_CONSUMER_ENTRY, prefix, env);
}, 120_000);

afterAll(async () => {
  await Promise.all([consumer, ...senders].map((s) => s?.stop('SIGKILL')));
  await Promise.all(receivers.map((r) => r.close()));
  await partners?.close();
  await events?.close();
});

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

async function sender(): Promise<RunningService> {
  const started = await startService(CALLBACK_SENDER_ENTRY, prefix, env);
  senders.push(started);
  return started;
}

/** A loopback port nothing listens on: connections to it are refused. */
async function refusingUrl(): Promise<string> {
  const closed = await startReceiver();
  await closed.close();
  return `${closed.url}/cb`;
}

test('when one partner black-holes its callbacks and another refuses connections, then a third is delivered at pace while the failing partners’ circuits open', async () => {
  const running = await sender();
  const hole = await receiver(() => 'hang');
  const healthy = await receiver(() => 200);
  await partners.create('black-hole', {
    callback_endpoints: [{ url: `${hole.url}/cb`, timeout_ms: 1000 }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  await partners.create('refusing', {
    callback_endpoints: [{ url: await refusingUrl(), timeout_ms: 1000 }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  await partners.create('healthy', {
    callback_endpoints: [{ url: `${healthy.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });

  const published = new Map<string, number>();
  for (let round = 0; round < 20; round++) {
    const batch = [policyEvent('black-hole'), policyEvent('refusing'), ...Array.from({ length: 5 }, () => policyEvent('healthy'))];
    for (const e of batch) if (e.partner_id === 'healthy') published.set(e.policy.policy_number, Date.now());
    await events.publish(batch);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await waitFor(() => healthy.requests.length >= 100, 'every healthy callback', 60_000);
  const latencies = healthy.requests.map((r) => r.at - published.get(String(r.body.policy_number))!).sort((a, b) => a - b);
  // The black hole holds each attempt for its 1 s timeout; the healthy partner never waits for it in full.
  expect(latencies[Math.floor(latencies.length * 0.9)]).toBeLessThan(1500);

  const metrics = await (await fetch(`${running.url}/metrics`)).text();
  expect(metrics).toMatch(/hookstream_callback_circuit_state\{[^}]*partner="black-hole"[^}]*\} 2/);
  expect(metrics).not.toMatch(/hookstream_callback_circuit_state\{[^}]*partner="healthy"[^}]*\} [12]/);
  expect(metrics).toMatch(/hookstream_callback_attempts_total\{[^}]*partner="black-hole"[^}]*outcome="skipped_circuit_open"[^}]*\} \d+/);
  // Open means no attempts: far fewer reached the black hole than were due.
  expect(hole.requests.length).toBeLessThan(20);
  // Refused connections are failures too (they are quick, but the partner is down): its circuit opens as well.
  expect(metrics).toMatch(/hookstream_callback_circuit_state\{[^}]*partner="refusing"[^}]*\} 2/);
  expect(metrics).toMatch(/hookstream_callback_attempts_total\{[^}]*partner="refusing"[^}]*outcome="skipped_circuit_open"[^}]*\} \d+/);
  const refusedAttempts = /hookstream_callback_attempts_total\{[^}]*partner="refusing"[^}]*outcome="failed"[^}]*\} (\d+)/.exec(metrics);
  expect(Number(refusedAttempts?.[1])).toBeLessThan(20);
  // Its records are not rewritten for ever: once one has waited the whole retry schedule (8 × 500 ms here), it is dead-lettered.
  const dead = await readTopicUntil<{ partner_id: string }>(`${prefix}callback-dlq`, (records) =>
    records.some((r) => r.value.partner_id === 'black-hole' && r.headers?.['kafka_dlt-exception-fqcn']?.toString() === 'CIRCUIT_OPEN'),
  );
  const letter = dead.find((r) => r.headers?.['kafka_dlt-exception-fqcn']?.toString() === 'CIRCUIT_OPEN')!;
  expect(letter.headers?.['kafka_dlt-exception-message']?.toString()).toMatch(
    /^the partner's circuit stayed open for the whole retry schedule/,
  );
  expect(Number(letter.headers?.['hookstream-skips']?.toString())).toBeGreaterThan(0);
  await running.stop();
}, 120_000);

test('when a sender is killed with SIGKILL mid-run beside a second one, then every callback is delivered at least once, each repeat with the same delivery id', async () => {
  const target = await receiver(() => 200);
  await partners.create('crash-target', {
    callback_endpoints: [{ url: `${target.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const [doomed, survivor] = await Promise.all([sender(), sender()]);
  const count = 400;
  const published = Array.from({ length: count }, () => policyEvent('crash-target'));
  const publishing = (async () => {
    for (let i = 0; i < count; i += 20) {
      await events.publish(published.slice(i, i + 20));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  // A random moment once deliveries are under way.
  const killAt = 40 + Math.floor(Math.random() * 160);
  await waitFor(() => target.requests.length >= killAt, 'deliveries to be under way', 60_000);
  await doomed.stop('SIGKILL');
  const restarted = await sender(); // and back up, as an orchestrator would
  await publishing;

  const requests = await readTopicUntil<{ partner_id: string; delivery_id: string; event_id: string }>(
    `${prefix}callback-requests`,
    (records) => records.filter((r) => r.value.partner_id === 'crash-target').length >= count,
  );
  const expected = new Map(
    requests.filter((r) => r.value.partner_id === 'crash-target').map((r) => [r.value.event_id, r.value.delivery_id]),
  );
  await waitFor(
    () => new Set(target.requests.map((r) => r.headers['x-hookstream-delivery-id'])).size >= count,
    'every callback to be delivered by the surviving and restarted senders',
    90_000,
  );
  const received = new Set(target.requests.map((r) => String(r.headers['x-hookstream-delivery-id'])));
  expect([...expected.values()].every((id) => received.has(id))).toBe(true);
  // Repeats (deliveries in flight when the sender died) carry the delivery id of their event.
  for (const request of target.requests) {
    expect(request.headers['x-hookstream-delivery-id']).toBe(expected.get(String(request.headers['x-hookstream-event-id'])));
  }
  expect(target.requests.length).toBeGreaterThanOrEqual(count);
  await Promise.all([survivor.stop(), restarted.stop()]);
}, 240_000);
