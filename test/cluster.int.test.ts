/**
 * A 3-broker cluster (`hookstream stack up --brokers 3`, its own stack on free ports) under
 * inbound and outbound load loses, by SIGKILL, the broker that leads the most partitions of the
 * topics in use. With three replicas and min.insync.replicas 2, nothing acknowledged may be lost:
 * every webhook answered 200 is on partner-events, every published policy event reaches the
 * partner (repeats only with the same delivery id), and no answer is a 5xx other than 503 with
 * Retry-After. The services run against the cluster unchanged. The affected window's p99 and the
 * counts are printed.
 */
import { AvroCodec, defaultSchemasDir, topicCatalogue } from '@hookstream/kafka';
import { describeError } from '@hookstream/errors';
import { activeController, leadersPerBroker, startTestStack, type TestStack } from './helpers/cluster';
import { readTopicToEnd, testKafka, uniqueName, waitFor } from './helpers/infrastructure';
import { TestPartners, ensureTopics, startIngress } from './helpers/ingress';
import { percentile, policyEventLoad, webhookLoad } from './helpers/load';
import {
  CALLBACK_SENDER_ENTRY,
  POLICY_CONSUMER_ENTRY,
  PolicyEvents,
  startReceiver,
  startService,
  type Receiver,
  type RunningService,
} from './helpers/outbound';

/** From the kill to 10 s after: the span whose latency the p99 describes. */
const AFFECTED_WINDOW_MS = 10_000;
// Short retry delays and open periods: on two cores shared with three brokers, a kill can slow the
// receiver's answers past the timeout, and a callback then waits its tier (30 s, 2 min by default):
// this test is about losing nothing, not about those waits.
const SERVICE_ENV = {
  SSRF_ALLOW: '127.0.0.0/8',
  CALLBACK_RETRY_DELAYS_MS: '1000,2000,5000,10000,20000,30000,60000,60000',
  BREAKER_OPEN_MS: '5000',
};

let stack: TestStack | undefined;
const stops: Array<() => Promise<unknown>> = [];
let receiver: Receiver;

beforeAll(async () => {
  stack = await startTestStack(3);
  // The helpers and services reach the stack through the environment (as `npm test` sets it): this file's own cluster instead.
  Object.assign(process.env, stack.env);
  receiver = await startReceiver();
}, 300_000);

afterAll(async () => {
  for (const stop of stops.toReversed()) await stop().catch(() => undefined);
  await receiver?.close();
  await stack?.down();
}, 120_000);

test('when the broker leading the most partitions is SIGKILLed under load, then no acknowledged webhook or callback is lost and only 503s with Retry-After are refused', async () => {
  const cluster = stack!;
  const healthy = await cluster.status();
  expect(healthy.code).toBe(0);
  expect(healthy.json.health.kafkaNodes?.map((node) => node.ok)).toEqual([true, true, true]);

  const prefix = `${uniqueName('cluster')}.`;
  await ensureTopics(prefix);
  const topics = topicCatalogue({ prefix }).map((t) => t.topic);
  const kafka = testKafka();
  const admin = kafka.admin();
  await admin.connect();
  stops.push(() => admin.disconnect());
  // `topics ensure` chose the cluster's settings: three replicas of every partition, two in sync for a write.
  // No topic at all has fewer (the stack's readiness probe's included): a partition whose one replica
  // died would have no leader, and kafkajs fails every all-topics metadata request then.
  const metadata = await admin.fetchTopicMetadata({ topics: await admin.listTopics() });
  expect(metadata.filter((t) => t.partitions.some((p) => p.replicas.length !== 3)).map((t) => t.name)).toEqual([]);
  expect(metadata.map((t) => t.name)).toEqual(expect.arrayContaining([...topics, '__consumer_offsets', '__transaction_state']));
  const configs = await admin.describeTopicConfigs([`${prefix}partner-events`, '__transaction_state']);
  expect([...configs.values()].map((config) => config.get('min.insync.replicas'))).toEqual(['2', '2']);

  const partners = new TestPartners(kafka, prefix, cluster.env.SCHEMA_REGISTRY_URL!);
  stops.push(() => partners.close());
  const partnerId = 'cluster-partner';
  const apiKey = await partners.create(partnerId, {
    callback_endpoints: [{ endpoint_id: 'primary', url: `${receiver.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const events = new PolicyEvents(kafka, prefix);
  stops.push(() => events.close());
  const [ingress, ...consumers] = await Promise.all([
    startIngress(prefix),
    startService(POLICY_CONSUMER_ENTRY, prefix, SERVICE_ENV),
    startService(CALLBACK_SENDER_ENTRY, prefix, SERVICE_ENV),
  ]);
  for (const service of [ingress, ...consumers]) stops.push(() => service.stop('SIGKILL'));

  const inbound = webhookLoad(ingress.webhookUrl, apiKey, 4);
  const outbound = policyEventLoad(events, partnerId);
  stops.push(() => Promise.all([inbound.stop(), outbound.stop()]));
  await waitFor(
    () => inbound.answers.filter((a) => a.status === 200).length >= 50 && receiver.requests.length >= 20,
    'webhooks accepted and callbacks delivered before the kill',
    60_000,
  );

  const leaders = await leadersPerBroker(admin, topics);
  const [victim, led] = [...leaders].sort((a, b) => b[1] - a[1])[0]!;
  const node = cluster.runInfo().cluster!.find((n) => n.nodeId === victim)!;
  const controller = activeController(cluster.stateDir);
  const killedAt = Date.now();
  process.kill(node.pid, 'SIGKILL');
  // The load runs on past the window, until webhooks are accepted again after it.
  await waitFor(
    () => inbound.answers.some((a) => a.sentAt > killedAt + AFFECTED_WINDOW_MS + 2_000 && a.status === 200),
    'a webhook accepted after the affected window',
    60_000,
  );
  await Promise.all([inbound.stop(), outbound.stop()]);

  // `stack status` names the node that is down, and the cluster as serving.
  const degraded = await cluster.status();
  expect(degraded.json.health).toMatchObject({
    kafka: { ok: true },
    kafkaNodes: [1, 2, 3].map((nodeId) => ({ nodeId, ok: nodeId !== victim, alive: nodeId !== victim })),
  });
  expect(degraded.code).toBe(4);

  // Every acknowledged event reaches the partner, repeats only with the same delivery id.
  const deliveries = () => {
    const ids = new Map<string, Set<string>>();
    for (const r of receiver.requests) {
      const policy = String((r.body as { policy_number?: unknown }).policy_number);
      ids.set(policy, (ids.get(policy) ?? new Set()).add(String(r.headers['x-hookstream-delivery-id'])));
    }
    return ids;
  };
  await waitFor(
    () => [...outbound.published.keys()].every((policy) => deliveries().has(policy)),
    'every published event delivered',
    150_000,
  ).catch((error: unknown) => {
    // What a failure needs to be understood: how many are missing, and what the services said.
    const missing = [...outbound.published.keys()].filter((policy) => !deliveries().has(policy)).length;
    const said = (service: RunningService) =>
      service
        .output()
        .split('\n')
        .filter((line) => /"level":"(warn|error)"/.test(line))
        .slice(-15);
    const [consumer, sender] = consumers;
    throw new Error(
      `${describeError(error)}: ${missing} of ${outbound.published.size} not delivered\nconsumer: ${said(consumer).join('\n')}\nsender: ${said(sender).join('\n')}`,
    );
  });
  const delivered = deliveries();
  expect([...delivered.values()].filter((ids) => ids.size > 1)).toEqual([]);

  // Every webhook answered 200 is on partner-events; every other answer is a 503 with Retry-After.
  const answers = inbound.answers;
  const refusedOtherwise = answers.filter((a) => a.status !== 200 && !(a.status === 503 && /^\d+$/.test(a.retryAfter ?? '')));
  expect(refusedOtherwise).toEqual([]);
  const onTopic = await requestIdsOn(kafka, `${prefix}partner-events`, cluster.env.SCHEMA_REGISTRY_URL!);
  const lost = answers.filter((a) => a.status === 200 && !onTopic.has(a.requestId));
  expect(lost).toEqual([]);

  // The figures: the window from the kill to 10 s after, inbound and outbound.
  const inWindow = (at: number) => at >= killedAt && at < killedAt + AFFECTED_WINDOW_MS;
  const window = answers.filter((a) => inWindow(a.sentAt));
  const latencies = window.map((a) => a.latencyMs);
  const firstDelivery = new Map<string, number>();
  for (const r of receiver.requests) {
    const policy = String((r.body as { policy_number?: unknown }).policy_number);
    firstDelivery.set(policy, Math.min(firstDelivery.get(policy) ?? Infinity, r.at));
  }
  const callbackDelays = [...outbound.published].filter(([, at]) => inWindow(at)).map(([policy, at]) => firstDelivery.get(policy)! - at);
  const count = (status: number, of: typeof answers) => of.filter((a) => a.status === status).length;
  console.log(
    `3-broker cluster, node ${victim} (led ${led} of ${[...leaders.values()].reduce((a, b) => a + b, 0)} partitions; ` +
      `${victim === controller ? 'also' : 'not'} the active controller) SIGKILLed. ` +
      `Webhooks: ${answers.length} (${count(200, answers)} × 200, ${count(503, answers)} × 503), none of the 200s lost; ` +
      `kill +${AFFECTED_WINDOW_MS / 1000} s: ${window.length} (${count(503, window)} × 503), latency p50 ${percentile(latencies, 50)} ms, ` +
      `p99 ${percentile(latencies, 99)} ms, max ${Math.max(...latencies)} ms. ` +
      `Callbacks: ${outbound.published.size} events acknowledged (${outbound.failed()} publishes failed), all delivered ` +
      `(${receiver.requests.length} requests, ${receiver.requests.length - delivered.size} repeats); ${callbackDelays.length} published in the window, ` +
      `publish-to-callback p50 ${percentile(callbackDelays, 50)} ms, p99 ${percentile(callbackDelays, 99)} ms, max ${Math.max(...callbackDelays)} ms`,
  );
  expect(window.length).toBeGreaterThan(0);
}, 420_000);

/** Every request_id on `topic`, read to its end. */
async function requestIdsOn(kafka: ReturnType<typeof testKafka>, topic: string, registryUrl: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const codec = new AvroCodec(registryUrl, defaultSchemasDir());
  for (const m of await readTopicToEnd(topic, kafka)) ids.add(((await codec.decode(m.value!)) as { request_id: string }).request_id);
  return ids;
}
