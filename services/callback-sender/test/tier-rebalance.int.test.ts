import { testInfrastructure, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';
import { TestPartners, ensureTopics } from '../../../test/helpers/ingress';
import {
  CALLBACK_SENDER_ENTRY,
  POLICY_CONSUMER_ENTRY,
  PolicyEvents,
  policyEvent,
  startReceiver,
  startService,
  type Receiver,
  type RunningService,
} from '../../../test/helpers/outbound';

/**
 * A retry waiting in a tier survives rebalances of the sender's group: kafkajs keeps a paused
 * partition paused across a rebalance, so the sender must lift the pauses whose timers it drops.
 */
const prefix = `${uniqueName('tier-rebalance')}.`;
const TIER_1_MS = 25_000;
const env = {
  CALLBACK_RETRY_DELAYS_MS: [TIER_1_MS, 300, 300, 300, 300, 300, 300, 300].join(','),
  SSRF_ALLOW: '127.0.0.0/8',
  BREAKER_FAILURE_THRESHOLD: '100',
  BREAKER_OPEN_MS: '1000',
};
const kafka = testKafka();
const tierGroup = `${prefix}hookstream-callback-sender-retries`;
let partners: TestPartners;
let events: PolicyEvents;
let receiver: Receiver | undefined;
const services: RunningService[] = [];

beforeAll(async () => {
  await ensureTopics(prefix);
  partners = new TestPartners(kafka, prefix, testInfrastructure().registryUrl);
  events = new PolicyEvents(kafka, prefix);
  services.push(await startService(POLICY_CONSUMER_ENTRY, prefix, env));
}, 120_000);

afterAll(async () => {
  await Promise.all(services.map((s) => s.stop('SIGKILL')));
  await receiver?.close();
  await partners?.close();
  await events?.close();
});

async function membersOf(groupId: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return groups[0]?.state === 'Stable' ? groups[0].members.length : -1;
  } finally {
    await admin.disconnect();
  }
}

test('when a second sender joins and leaves while a retry waits in its tier, then the retry is still sent once due, not before', async () => {
  receiver = await startReceiver((_r, i) => (i === 0 ? 500 : 200));
  await partners.create('rebalanced', {
    callback_endpoints: [{ url: `${receiver.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const first = await startService(CALLBACK_SENDER_ENTRY, prefix, env);
  services.push(first);
  await events.publish([policyEvent('rebalanced')]);
  await waitFor(() => receiver!.requests.length >= 1, 'the first attempt', 30_000);
  // The first sender reads the retry back from tier 1 and holds it, its partition paused.
  await waitFor(
    async () => /hookstream_callback_paused_partitions(\{[^}]*\})? [1-9]/.test(await (await fetch(`${first.url}/metrics`)).text()),
    'the retry to be held',
    TIER_1_MS / 2,
  );

  const second = await startService(CALLBACK_SENDER_ENTRY, prefix, env);
  services.push(second);
  await waitFor(async () => (await membersOf(tierGroup)) === 2, 'the second sender in the tiers group', 30_000);
  await second.stop();
  await waitFor(async () => (await membersOf(tierGroup)) === 1, 'the second sender gone from the tiers group', 30_000);
  expect(receiver.requests).toHaveLength(1); // still not due

  await waitFor(() => receiver!.requests.length >= 2, 'the retry', TIER_1_MS + 30_000);
  const [attempt1, attempt2] = receiver.requests;
  expect(attempt2!.at - attempt1!.at).toBeGreaterThanOrEqual(TIER_1_MS);
  expect(attempt2!.headers['x-hookstream-delivery-id']).toBe(attempt1!.headers['x-hookstream-delivery-id']);
}, 150_000);
