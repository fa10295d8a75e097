import { sleep } from '@hookstream/runtime';
import { waitFor } from '../../../test/helpers/infrastructure';
import { policyEvent, readTopicUntil, type ReceivedRequest, type ReceiverAnswer } from '../../../test/helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import type { RunningService } from '../../../test/helpers/processes';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';
import { TcpGate } from '../../../test/helpers/tcp-gate';

/**
 * The state store (the newest policy versions) stopped under a running sender, end to end on a
 * real broker and a real PostgreSQL: the sender reaches the store through a gate the test closes
 * (connections reset, new ones refused) and opens again, as a stopped and restarted server.
 */
const DELAYS = retryTierDelays(1500, 300);
let outbound: OutboundFixture;
let database: StateDatabase;
let gate: TcpGate;
let sender: RunningService;

beforeAll(async () => {
  database = await freshStateDatabase();
  gate = new TcpGate(Number(new URL(database.url).port || 5432));
  await gate.open();
  const url = new URL(database.url);
  url.port = String(gate.port);
  outbound = await OutboundFixture.open('store-outage', {
    retryDelaysMs: DELAYS,
    breaker: { failures: 100, openMs: 1000 },
    env: { DATABASE_URL: url.toString() },
  });
  [, sender] = await Promise.all([outbound.startConsumer(), outbound.startSender()]);
}, 120_000);

afterAll(async () => {
  await outbound?.close();
  await gate?.close();
  await database?.drop();
  await stopStateServer();
});

async function partnerWith(answer: (request: ReceivedRequest, index: number) => ReceiverAnswer) {
  const receiver = await outbound.receiver(answer);
  const partnerId = uniquePartnerId('so');
  await outbound.onboard(partnerId, { url: `${receiver.url}/cb`, timeout_ms: 2000 });
  return { receiver, partnerId };
}

const outcomesOf = (partnerId: string, enough: (mine: Array<{ outcome: string; attempt: number }>) => boolean) =>
  readTopicUntil<{ partner_id: string; outcome: string; attempt: number; policy_version: number }>(
    `${outbound.prefix}callback-outcomes`,
    (records) => enough(records.map((r) => r.value).filter((o) => o.partner_id === partnerId)),
    60_000,
  ).then((records) => records.map((r) => r.value).filter((o) => o.partner_id === partnerId));

async function storeStopped<T>(whileStopped: () => Promise<T>): Promise<T> {
  await gate.close();
  try {
    const result = await whileStopped();
    await waitFor(async () => (await fetch(`${sender.opsUrl}/readyz`)).status === 503, 'the sender not ready', 10_000);
    const body = (await (await fetch(`${sender.opsUrl}/readyz`)).json()) as { checks: Record<string, { ok: boolean }> };
    expect(body.checks['state-store']?.ok).toBe(false);
    return result;
  } finally {
    await gate.open();
  }
}

test('when the store is stopped as a callback arrives, then it waits, and once the store is back it is delivered once: neither lost nor skipped', async () => {
  const { receiver, partnerId } = await partnerWith(() => 200);
  await storeStopped(async () => {
    await outbound.events.publish([policyEvent(partnerId)]);
    // Long enough for the callback to reach the sender and be read (and refused) several times.
    await sleep(6_000);
    expect(receiver.requests).toHaveLength(0);
  });
  await waitFor(() => receiver.requests.length >= 1, 'the delivery once the store is back', 30_000);
  const outcomes = await outcomesOf(partnerId, (mine) => mine.length >= 1);
  await sleep(1_000);
  expect(receiver.requests).toHaveLength(1);
  expect(outcomes.map((o) => [o.outcome, o.attempt])).toEqual([['DELIVERED', 1]]);
});

test('when the store is stopped while a retry waits in a tier, then the retry is made once the store is back, not skipped', async () => {
  const { receiver, partnerId } = await partnerWith((_r, i) => (i === 0 ? 500 : 200));
  await outbound.events.publish([policyEvent(partnerId)]);
  await waitFor(() => receiver.requests.length >= 1, 'the first attempt', 30_000);
  await storeStopped(async () => {
    // Past the retry's due time: it is read from its tier and refused while the store is away.
    await sleep(DELAYS[0]! + 4_000);
    expect(receiver.requests).toHaveLength(1);
  });
  await waitFor(() => receiver.requests.length >= 2, 'the retry once the store is back', 30_000);
  const outcomes = await outcomesOf(partnerId, (mine) => mine.length >= 2);
  expect(outcomes.map((o) => [o.outcome, o.attempt])).toEqual([
    ['FAILED_ATTEMPT', 1],
    ['DELIVERED', 2],
  ]);
});
