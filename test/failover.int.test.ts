import { sleep } from '@hookstream/runtime';
import { waitFor } from './helpers/infrastructure';
import { policyEvent, type Receiver } from './helpers/outbound';
import { OutboundFixture } from './helpers/outbound-fixture';

/**
 * Failover of the consumer groups: when a member dies (SIGKILL, no goodbye), its partitions are
 * served again by another member, or by its restarted self, within the bound below. The bound
 * follows from the settings: the group waits out the dead member's session (KAFKA_SESSION_TIMEOUT_MS,
 * 10 s), the survivors rejoin at their next heartbeat (1 s), and a process start takes a few seconds
 * (more on a loaded CI machine: the bound leaves room for that; measured ~10 s here).
 */
const FAILOVER_BOUND_MS = 20_000;
let outbound: OutboundFixture | undefined;
let receiver: Receiver;

/** Publishes one event every 50 ms until stopped; records when each policy number was published. */
function publishSteadily(fixture: OutboundFixture, partnerId: string) {
  const publishedAt = new Map<string, number>();
  let running = true;
  const done = (async () => {
    while (running) {
      const event = policyEvent(partnerId);
      await fixture.events.publish([event]);
      publishedAt.set(event.policy.policy_number, Date.now());
      await sleep(50);
    }
  })();
  return {
    publishedAt,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** For every event published after `from`: its delay to the partner; fails when one is missing. */
async function deliveryDelays(publishedAt: Map<string, number>, from: number): Promise<number[]> {
  const wanted = [...publishedAt].filter(([, at]) => at >= from);
  const deliveredAt = () => new Map(receiver.requests.map((r) => [String((r.body as { policy_number?: unknown }).policy_number), r.at]));
  await waitFor(
    () => wanted.every(([policy]) => deliveredAt().has(policy)),
    'every event published after the kill to be delivered',
    60_000,
  );
  const delivered = deliveredAt();
  return wanted.map(([policy, at]) => delivered.get(policy)! - at);
}

afterAll(() => outbound?.close('SIGKILL'));

/** Topics of a prefix of its own, its partner and that partner's receiver, for one test; what the last test started is killed. */
async function setUp(name: string): Promise<{ fixture: OutboundFixture; partnerId: string }> {
  await outbound?.close('SIGKILL');
  outbound = await OutboundFixture.open(name);
  receiver = await outbound.receiver();
  const partnerId = `${name}-partner`;
  await outbound.onboard(partnerId, { endpoint_id: 'primary', url: `${receiver.url}/cb` });
  return { fixture: outbound, partnerId };
}

test('when one of two members of each group is killed, then every event published after the kill is delivered within the bound', async () => {
  const { fixture, partnerId } = await setUp('failover');
  const [consumerA, , senderA] = [
    await fixture.startConsumer(),
    await fixture.startConsumer(),
    await fixture.startSender(),
    await fixture.startSender(),
  ];
  const load = publishSteadily(fixture, partnerId);
  await waitFor(() => receiver.requests.length >= 40, 'deliveries before the kill', 30_000);
  const killedAt = Date.now();
  await Promise.all([consumerA.stop('SIGKILL'), senderA.stop('SIGKILL')]);
  await sleep(FAILOVER_BOUND_MS + 3_000);
  await load.stop();
  const delays = await deliveryDelays(load.publishedAt, killedAt);
  const worst = Math.max(...delays);
  console.log(`failover, 2 members per group, one of each killed: ${delays.length} events after the kill, worst delay ${worst} ms`);
  expect(delays.length).toBeGreaterThan(100);
  expect(worst).toBeLessThan(FAILOVER_BOUND_MS);
}, 180_000);

test('when the only sender is killed and started again at once, then it does not wait out its old session: deliveries resume within the bound', async () => {
  const { fixture, partnerId } = await setUp('restart');
  await fixture.startConsumer();
  const first = await fixture.startSender();
  const load = publishSteadily(fixture, partnerId);
  await waitFor(() => receiver.requests.length >= 20, 'deliveries before the kill', 30_000);
  const killedAt = Date.now();
  await first.stop('SIGKILL');
  await fixture.startSender();
  await sleep(FAILOVER_BOUND_MS + 3_000);
  await load.stop();
  const delays = await deliveryDelays(load.publishedAt, killedAt);
  const worst = Math.max(...delays);
  console.log(`sender SIGKILL and restart: ${delays.length} events after the kill, worst delay ${worst} ms`);
  expect(worst).toBeLessThan(FAILOVER_BOUND_MS);
}, 180_000);
