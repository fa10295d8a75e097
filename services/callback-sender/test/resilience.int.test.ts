import { waitFor } from '../../../test/helpers/infrastructure';
import { policyEvent, readTopicUntil, startReceiver } from '../../../test/helpers/outbound';
import { OutboundFixture, retryTierDelays } from '../../../test/helpers/outbound-fixture';

/**
 * Isolation between partners (circuit breaker, per-partner limits) and crash safety of the
 * sender (SIGKILL mid-run, two instances in one group), end to end on a real broker.
 */
let outbound: OutboundFixture;

beforeAll(async () => {
  outbound = await OutboundFixture.open('resilience', {
    retryDelaysMs: retryTierDelays(500),
    breaker: { failures: 3, openMs: 3000 },
    env: { SENDER_PARTNER_CONCURRENCY: '8' },
  });
  await outbound.startConsumer();
}, 120_000);

afterAll(() => outbound?.close('SIGKILL'));

/** A loopback port nothing listens on: connections to it are refused. */
async function refusingUrl(): Promise<string> {
  const closed = await startReceiver();
  await closed.close();
  return `${closed.url}/cb`;
}

test('when one partner black-holes its callbacks and another refuses connections, then a third is delivered while the failing partners’ circuits open', async () => {
  const running = await outbound.startSender();
  const hole = await outbound.receiver(() => 'hang');
  const healthy = await outbound.receiver(() => 200);
  await outbound.onboard('black-hole', { url: `${hole.url}/cb`, timeout_ms: 1000 });
  await outbound.onboard('refusing', { url: await refusingUrl(), timeout_ms: 1000 });
  await outbound.onboard('healthy', { url: `${healthy.url}/cb` });

  const published = new Map<string, number>();
  for (let round = 0; round < 20; round++) {
    const batch = [policyEvent('black-hole'), policyEvent('refusing'), ...Array.from({ length: 5 }, () => policyEvent('healthy'))];
    for (const e of batch) if (e.partner_id === 'healthy') published.set(e.policy.policy_number, Date.now());
    await outbound.events.publish(batch);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await waitFor(() => healthy.requests.length >= 100, 'every healthy callback', 60_000);
  const latencies = healthy.requests.map((r) => r.at - published.get(String(r.body.policy_number))!).sort((a, b) => a - b);
  // The black hole holds each attempt for its 1 s timeout; how long the healthy partner waits meanwhile
  // is a figure for `npm run bench:isolation`, not a bound here (a busy machine would fail it).
  console.log(`healthy partner beside a black hole: publish-to-callback p90 ${latencies[Math.floor(latencies.length * 0.9)]} ms`);

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
  const dead = await readTopicUntil<{ partner_id: string }>(`${outbound.prefix}callback-dlq`, (records) =>
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
  const target = await outbound.receiver(() => 200);
  await outbound.onboard('crash-target', { url: `${target.url}/cb` });
  const [doomed, survivor] = await Promise.all([outbound.startSender(), outbound.startSender()]);
  const count = 400;
  const published = Array.from({ length: count }, () => policyEvent('crash-target'));
  const publishing = (async () => {
    for (let i = 0; i < count; i += 20) {
      await outbound.events.publish(published.slice(i, i + 20));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  // A random moment once deliveries are under way.
  const killAt = 40 + Math.floor(Math.random() * 160);
  await waitFor(() => target.requests.length >= killAt, 'deliveries to be under way', 60_000);
  await doomed.stop('SIGKILL');
  const restarted = await outbound.startSender(); // and back up, as an orchestrator would
  await publishing;

  const requests = await readTopicUntil<{ partner_id: string; delivery_id: string; event_id: string }>(
    `${outbound.prefix}callback-requests`,
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
