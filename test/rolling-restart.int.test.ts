/**
 * A rolling restart under steady load, inbound and outbound at once (issue 18, Lifecycle): two
 * replicas of each service; partners post webhooks to both ingress replicas in turn, sending one
 * again with the same request_id on a connection error or a 503; policy events are published at a
 * steady rate; a loopback receiver counts deliveries by delivery id. Each replica of each service
 * is restarted in turn (SIGTERM, exit 0, started again, /readyz 200), then the load stops. Nothing
 * is lost, and nothing is repeated except with the same delivery id. The counts are printed.
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
const SERVICES = ['ingress', 'policy-status-consumer', 'callback-sender'] as const;
type Service = (typeof SERVICES)[number];
/** A running replica; an ingress's has the URL partners post webhooks to. */
type Replica = RunningService & { webhookUrl?: string };

let fixture: OutboundFixture | undefined;
let receiver: CountingReceiver | undefined;

afterAll(async () => {
  await fixture?.close('SIGKILL');
  await receiver?.close();
});

test('when every replica of every service is restarted in turn under load, then nothing is lost and nothing repeated but with its delivery id', async () => {
  const startedAt = Date.now();
  const env = { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) };
  const outbound = (fixture = await OutboundFixture.open('rolling', { env }));
  receiver = await startCountingReceiver(50);
  const partnerId = uniquePartnerId('rolling');
  const apiKey = await outbound.partners.create(partnerId, {
    callback_endpoints: [{ endpoint_id: 'primary', url: `${receiver.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const start: Record<Service, () => Promise<Replica>> = {
    ingress: () => outbound.startIngress(env),
    'policy-status-consumer': () => outbound.startConsumer(),
    'callback-sender': () => outbound.startSender(),
  };
  const [ingress, consumers, senders] = await Promise.all(SERVICES.map((service) => Promise.all([start[service](), start[service]()])));
  const replicas: Record<Service, Replica[]> = { ingress: ingress!, 'policy-status-consumer': consumers!, 'callback-sender': senders! };
  const partners = new PartnerClient(() => replicas.ingress.map((r) => r.webhookUrl!), apiKey, { clients: 2, pauseMs: 100 });
  const events = policyEventLoad(outbound.events, partnerId, 100);
  await waitFor(() => partners.accepted >= 20 && receiver!.byDeliveryId.size >= 20, 'traffic before the first restart', 60_000);
  const loadFrom = Date.now();

  const stops: Array<{ replica: string; readyAfterMs: number } & ObservedStop> = [];
  for (const service of SERVICES) {
    for (const i of [0, 1]) {
      const stopped = await stopObserved(replicas[service][i]!);
      const startedAgain = Date.now();
      replicas[service][i] = await start[service]();
      stops.push({ replica: `${service} #${i + 1}`, readyAfterMs: Date.now() - startedAgain, ...stopped });
    }
  }
  const restartsMs = Date.now() - loadFrom;
  await Promise.all([partners.stop(), events.stop()]);
  const published = [...events.published.keys()];
  await waitFor(() => published.every((p) => receiver!.policies.has(p)), 'every event published to be called back', 120_000);

  const recorded = await readWholeTopic<{ request_id: string | null }>(`${outbound.prefix}partner-events`);
  const onTopic = new Map<string, number>();
  for (const { value } of recorded) onTopic.set(value.request_id!, (onTopic.get(value.request_id!) ?? 0) + 1);
  const deliveries = [...receiver.byDeliveryId.values()].reduce((sum, n) => sum + n, 0);
  const repeated = [...receiver.byDeliveryId.values()].filter((n) => n > 1).length;
  const attempts = partners.webhooks.reduce((sum, w) => sum + w.attempts, 0);
  const lines = [
    ...stops.map(
      (s) =>
        `${s.replica}: SIGTERM → exit ${s.code} in ${s.ms} ms (bound ${STOP_BOUND_MS}), /readyz 503 draining ${s.drainingAnswers}×; ready again ${s.readyAfterMs} ms after its start`,
    ),
    `restarts took ${(restartsMs / 1000).toFixed(1)} s; the test ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    `webhooks: ${partners.webhooks.length} sent, ${partners.accepted} answered 200 after ${attempts} attempts; retried: ${JSON.stringify(Object.fromEntries(partners.retries))}`,
    `partner-events: ${recorded.length} records, ${onTopic.size} request_ids, ${[...onTopic.values()].filter((n) => n > 1).length} more than once`,
    `policy events: ${published.length} published (${events.failed()} failed); deliveries ${deliveries}, distinct delivery ids ${receiver.byDeliveryId.size}, repeated ids ${repeated} (${deliveries - receiver.byDeliveryId.size} repeats), cut off ${receiver.cut()}`,
  ];
  process.stdout.write(`rolling restart:\n  ${lines.join('\n  ')}\n`);

  for (const stop of stops) {
    expect(stop).toMatchObject({ code: 0, signal: null });
    expect(stop.ms).toBeLessThan(STOP_BOUND_MS);
  }
  // Inbound: every webhook eventually answered 200, and each request_id is on partner-events exactly once.
  expect(partners.webhooks.filter((w) => w.status !== 200)).toEqual([]);
  expect(recorded).toHaveLength(partners.webhooks.length);
  expect(partners.webhooks.filter((w) => onTopic.get(w.requestId) !== 1)).toEqual([]);
  // Outbound: one delivery id per event (one endpoint), each delivered; a repeat can only be of the same delivery id.
  expect(events.failed()).toBe(0);
  expect(receiver.byDeliveryId.size).toBe(published.length);
  expect(receiver.policies.size).toBe(published.length);
}, 420_000);
