/**
 * SIGTERM under load (issue 18, Lifecycle): one replica of each service, webhooks from partners
 * that retry and policy events throughout, and each service in turn gets SIGTERM mid-load and is
 * started again. Each one drains (/readyz 503 with the check `draining`, `hookstream_service_ready`
 * 0), exits 0 within SHUTDOWN_TIMEOUT_MS, and nothing is lost or repeated: every webhook is on
 * partner-events once, every event is called back once, and no delivery in flight was cut off.
 */
import { waitFor } from './helpers/infrastructure';
import { policyEventLoad } from './helpers/load';
import { OutboundFixture, uniquePartnerId } from './helpers/outbound-fixture';
import { PartnerClient } from './helpers/partner-client';
import type { RunningService } from './helpers/processes';
import { readWholeTopic, startCountingReceiver, stopObserved, type CountingReceiver, type ObservedStop } from './helpers/restarts';

const SHUTDOWN_TIMEOUT_MS = 10_000;
/** From SIGTERM to the end of the process as seen from here: the shutdown itself, then the process's exit on a busy machine. */
const STOP_BOUND_MS = SHUTDOWN_TIMEOUT_MS + 2_000;
/** The receiver answers after this: deliveries are in flight when the sender gets SIGTERM. */
const RECEIVER_DELAY_MS = 300;

let fixture: OutboundFixture | undefined;
let receiver: CountingReceiver | undefined;

afterAll(async () => {
  await fixture?.close('SIGKILL');
  await receiver?.close();
});

test('when each service gets SIGTERM under load, then it drains, exits 0 within the bound, and nothing is lost or repeated', async () => {
  const env = { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) };
  const outbound = (fixture = await OutboundFixture.open('sigterm', { env }));
  receiver = await startCountingReceiver(RECEIVER_DELAY_MS);
  const partnerId = uniquePartnerId('sigterm');
  const apiKey = await outbound.partners.create(partnerId, {
    callback_endpoints: [{ endpoint_id: 'primary', url: `${receiver.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const start = {
    ingress: () => outbound.startIngress(env),
    'policy-status-consumer': () => outbound.startConsumer(),
    'callback-sender': () => outbound.startSender(),
  };
  const running: Record<keyof typeof start, RunningService & { webhookUrl?: string }> = {
    ingress: await start.ingress(),
    'policy-status-consumer': await start['policy-status-consumer'](),
    'callback-sender': await start['callback-sender'](),
  };
  const partners = new PartnerClient(() => [running.ingress.webhookUrl!], apiKey, { clients: 4, pauseMs: 20 });
  const events = policyEventLoad(outbound.events, partnerId, 50);
  await waitFor(() => partners.accepted >= 20 && receiver!.byDeliveryId.size >= 20, 'traffic before the first SIGTERM', 60_000);

  const stops: Array<{ service: string } & ObservedStop> = [];
  for (const service of Object.keys(start) as Array<keyof typeof start>) {
    const [accepted, delivered] = [partners.accepted, receiver.byDeliveryId.size];
    stops.push({ service, ...(await stopObserved(running[service])) });
    running[service] = await start[service]();
    // Mid-load again before the next one: both flows go on through the restarted service.
    await waitFor(
      () => partners.accepted > accepted + 10 && receiver!.byDeliveryId.size > delivered + 10,
      `traffic after ${service} restarted`,
      60_000,
    );
  }
  await Promise.all([partners.stop(), events.stop()]);
  const published = [...events.published.keys()];
  await waitFor(() => published.every((p) => receiver!.policies.has(p)), 'every event published to be called back', 120_000);

  const recorded = await readWholeTopic<{ request_id: string | null }>(`${outbound.prefix}partner-events`);
  const onTopic = new Map<string, number>();
  for (const { value } of recorded) onTopic.set(value.request_id!, (onTopic.get(value.request_id!) ?? 0) + 1);
  const repeats = [...receiver.byDeliveryId.values()].reduce((sum, n) => sum + n - 1, 0);
  for (const stop of stops) {
    process.stdout.write(
      `SIGTERM ${stop.service}: exit ${stop.code} after ${stop.ms} ms (bound ${STOP_BOUND_MS} ms); /readyz 503 draining ${stop.drainingAnswers}×, hookstream_service_ready ${stop.readyGauge}\n`,
    );
  }
  process.stdout.write(
    `webhooks ${partners.webhooks.length} (all 200: ${partners.accepted}), retried: ${JSON.stringify(Object.fromEntries(partners.retries))}; ` +
      `partner-events records ${recorded.length}; policy events ${published.length}, delivery ids ${receiver.byDeliveryId.size}, repeats ${repeats}, cut off ${receiver.cut()}\n`,
  );

  // The gauge is read once /readyz says draining; a replica with little in flight may end before that
  // read is answered (the ingress drains in a few hundred ms), so it is 0 wherever it was read, and read at least once.
  expect(stops.some((stop) => stop.readyGauge === 0)).toBe(true);
  for (const stop of stops) {
    expect(stop).toMatchObject({ code: 0, signal: null });
    expect([0, undefined]).toContain(stop.readyGauge);
    expect(stop.ms).toBeLessThan(STOP_BOUND_MS);
    expect(stop.drainingAnswers).toBeGreaterThan(0);
  }
  // Inbound: every webhook eventually answered 200, and each is on partner-events exactly once.
  expect(partners.webhooks.filter((w) => w.status !== 200)).toEqual([]);
  expect(recorded).toHaveLength(partners.webhooks.length);
  expect(partners.webhooks.filter((w) => onTopic.get(w.requestId) !== 1)).toEqual([]);
  // Outbound: every event called back once, none cut off; the one endpoint gives one delivery id per event.
  expect(events.failed()).toBe(0);
  expect(receiver.byDeliveryId.size).toBe(published.length);
  expect(repeats).toBe(0);
  expect(receiver.cut()).toBe(0);
}, 300_000);
