import { waitFor } from '../../../test/helpers/infrastructure';
import { policyEvent } from '../../../test/helpers/outbound';
import { OutboundFixture, retryTierDelays } from '../../../test/helpers/outbound-fixture';

/**
 * A retry waiting in a tier survives rebalances of the sender's group: the client keeps a paused
 * partition paused across a rebalance, so the sender must lift the pauses whose timers it drops.
 */
const TIER_1_MS = 25_000;
let outbound: OutboundFixture;

beforeAll(async () => {
  outbound = await OutboundFixture.open('tier-rebalance', {
    retryDelaysMs: retryTierDelays(TIER_1_MS, 300),
    breaker: { failures: 100, openMs: 1000 },
  });
  await outbound.startConsumer();
}, 120_000);

afterAll(() => outbound?.close('SIGKILL'));

/** Members of the senders' retry-tier group once it is stable; -1 while it rebalances. */
async function tierGroupMembers(): Promise<number> {
  const admin = outbound.kafka.admin();
  await admin.connect();
  try {
    const group = await admin.describeGroup(`${outbound.prefix}hookstream-callback-sender-retries`);
    return group.state === 'Stable' ? group.members.length : -1;
  } finally {
    await admin.disconnect();
  }
}

test('when a second sender joins and leaves while a retry waits in its tier, then the retry is still sent once due, not before', async () => {
  const receiver = await outbound.receiver((_r, i) => (i === 0 ? 500 : 200));
  await outbound.onboard('rebalanced', { url: `${receiver.url}/cb` });
  const first = await outbound.startSender();
  await outbound.events.publish([policyEvent('rebalanced')]);
  await waitFor(() => receiver.requests.length >= 1, 'the first attempt', 30_000);
  // The first sender reads the retry back from tier 1 and holds it, its partition paused.
  await waitFor(
    async () => /hookstream_callback_paused_partitions(\{[^}]*\})? [1-9]/.test(await (await fetch(`${first.url}/metrics`)).text()),
    'the retry to be held',
    TIER_1_MS / 2,
  );

  const second = await outbound.startSender();
  await waitFor(async () => (await tierGroupMembers()) === 2, 'the second sender in the tiers group', 30_000);
  await second.stop();
  await waitFor(async () => (await tierGroupMembers()) === 1, 'the second sender gone from the tiers group', 30_000);
  expect(receiver.requests).toHaveLength(1); // still not due

  await waitFor(() => receiver.requests.length >= 2, 'the retry', TIER_1_MS + 30_000);
  const [attempt1, attempt2] = receiver.requests;
  expect(attempt2!.at - attempt1!.at).toBeGreaterThanOrEqual(TIER_1_MS);
  expect(attempt2!.headers['x-hookstream-delivery-id']).toBe(attempt1!.headers['x-hookstream-delivery-id']);
}, 150_000);
