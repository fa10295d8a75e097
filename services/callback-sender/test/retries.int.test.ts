import { waitFor } from '../../../test/helpers/infrastructure';
import { policyEvent, readTopicUntil, type Receiver } from '../../../test/helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';

/**
 * Retry tiers, dead letters, latest-wins ordering and the SSRF guard (spec 4.1, 7.2, 8), end to
 * end on a real broker, with the tiers' delays in milliseconds.
 */
const DELAYS = retryTierDelays(1500, 300);
let outbound: OutboundFixture;

beforeAll(async () => {
  outbound = await OutboundFixture.open('retries', { retryDelaysMs: DELAYS, breaker: { failures: 100, openMs: 1000 } });
  await Promise.all([outbound.startConsumer(), outbound.startSender()]);
}, 120_000);

afterAll(() => outbound?.close());

async function partnerWith(answer: Parameters<OutboundFixture['receiver']>[0], url?: (receiver: Receiver) => string) {
  const receiver = await outbound.receiver(answer);
  const partnerId = uniquePartnerId('p');
  await outbound.onboard(partnerId, { url: url ? url(receiver) : `${receiver.url}/cb`, timeout_ms: 2000 });
  return { receiver, partnerId };
}

type Outcome = {
  partner_id: string;
  delivery_id: string;
  policy_version: number;
  outcome: string;
  attempt: number;
  http_status: number | null;
  error_class: string | null;
};
const outcomesOf = (partnerId: string, enough: (mine: Outcome[]) => boolean) =>
  readTopicUntil<Outcome>(
    `${outbound.prefix}callback-outcomes`,
    (records) => enough(records.map((r) => r.value).filter((o) => o.partner_id === partnerId)),
    60_000,
  ).then((records) => records.map((r) => r.value).filter((o) => o.partner_id === partnerId));
const header = (headers: Record<string, Buffer | string | undefined> | undefined, name: string) => headers?.[name]?.toString();

test('when the partner answers 500 and then 200, then the callback is delivered on the first retry, not before its delay, with the same delivery id', async () => {
  const { receiver, partnerId } = await partnerWith((_r, i) => (i === 0 ? 500 : 200));
  await outbound.events.publish([policyEvent(partnerId)]);
  await waitFor(() => receiver.requests.length >= 2, 'the retry', 30_000);
  const [first, second] = receiver.requests;
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(DELAYS[0]!);
  expect(second!.headers['x-hookstream-delivery-id']).toBe(first!.headers['x-hookstream-delivery-id']);
  expect([first!.headers['x-hookstream-attempt'], second!.headers['x-hookstream-attempt']]).toEqual(['1', '2']);
  expect(second!.raw.equals(first!.raw)).toBe(true);
  const outcomes = await outcomesOf(partnerId, (mine) => mine.length >= 2);
  expect(outcomes.map((o) => [o.outcome, o.attempt, o.http_status])).toEqual([
    ['FAILED_ATTEMPT', 1, 500],
    ['DELIVERED', 2, 200],
  ]);
});

test('when the partner always answers 201, then it is tried 9 times (8 retries, never early) and dead-lettered with headers that say why', async () => {
  const { receiver, partnerId } = await partnerWith(() => 201);
  const event = policyEvent(partnerId);
  await outbound.events.publish([event]);
  const dead = await readTopicUntil<{ partner_id: string; delivery_id: string }>(
    `${outbound.prefix}callback-dlq`,
    (records) => records.some((r) => r.value.partner_id === partnerId),
    60_000,
  );
  const letter = dead.find((r) => r.value.partner_id === partnerId)!;
  expect(receiver.requests).toHaveLength(9);
  const gaps = receiver.requests.slice(1).map((r, i) => r.at - receiver.requests[i]!.at);
  gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(DELAYS[i]!));
  const h = letter.headers as Record<string, Buffer>;
  expect(header(h, 'kafka_dlt-original-topic')).toBe(`${outbound.prefix}callback-requests`);
  expect(h['kafka_dlt-original-partition']!.readInt32BE()).toBeGreaterThanOrEqual(0);
  expect(h['kafka_dlt-original-offset']!.readBigInt64BE()).toBeGreaterThanOrEqual(0n);
  expect(header(h, 'kafka_dlt-exception-fqcn')).toBe('HTTP_STATUS');
  expect(header(h, 'kafka_dlt-exception-message')).toBe('9 attempts failed; the last: HTTP 201');
  expect(header(h, 'hookstream-attempts')).toBe('9');
  expect(header(h, 'hookstream-last-error')).toContain('HTTP 201');
  expect(Number(header(h, 'hookstream-last-failure-at'))).toBeGreaterThan(Number(header(h, 'hookstream-first-failure-at')));
  expect(header(h, 'hookstream-partner-id')).toBe(partnerId);
  expect(header(h, 'hookstream-delivery-id')).toBe(letter.value.delivery_id);
  expect(header(h, 'hookstream-event-id')).toMatch(/^[0-9a-f-]{36}$/);
  const outcomes = await outcomesOf(partnerId, (mine) => mine.some((o) => o.outcome === 'DEAD_LETTERED'));
  expect(outcomes.filter((o) => o.outcome === 'FAILED_ATTEMPT').map((o) => o.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('when ISSUING fails and ACTIVE is then emitted and delivered, then the ISSUING retry is not sent and is recorded as SUPERSEDED', async () => {
  const { receiver, partnerId } = await partnerWith((request) =>
    (request.body as { status?: string }).status === 'POLICY_ISSUING' ? 500 : 200,
  );
  const issuing = policyEvent(partnerId, { version: 1 }, { status: 'POLICY_ISSUING' });
  const active = { ...issuing, version: 2, policy: { ...issuing.policy, status: 'POLICY_ACTIVE' } };
  await outbound.events.publish([issuing]);
  await waitFor(() => receiver.requests.length >= 1, 'the ISSUING attempt', 30_000);
  await outbound.events.publish([active]);
  const outcomes = await outcomesOf(partnerId, (mine) => mine.some((o) => o.outcome === 'SUPERSEDED'));
  expect(outcomes.map((o) => [o.policy_version, o.outcome])).toEqual([
    [1, 'FAILED_ATTEMPT'],
    [2, 'DELIVERED'],
    [1, 'SUPERSEDED'],
  ]);
  expect(receiver.requests.map((r) => (r.body as { status: string }).status)).toEqual(['POLICY_ISSUING', 'POLICY_ACTIVE']);
});

test("when one partner's 503 asks for a long Retry-After, then another partner's retry behind it in the same tier partition is not held back", async () => {
  // One policy number for both: the same key, so the same partition of every tier.
  const policy = { policy_number: `POL-${uniquePartnerId('hol').toUpperCase()}` };
  const slow = await partnerWith((_r, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '60' } } : 200));
  const quick = await partnerWith((_r, i) => (i === 0 ? 500 : 200));
  await outbound.events.publish([policyEvent(slow.partnerId, {}, policy)]);
  await readTopicUntil<{ partner_id: string }>(`${outbound.prefix}callback-retry-1`, (records) =>
    records.some((r) => r.value.partner_id === slow.partnerId),
  ).catch(() => undefined); // wherever it went, it was written first
  await outbound.events.publish([policyEvent(quick.partnerId, {}, policy)]);
  await waitFor(() => quick.receiver.requests.length >= 2, "the quick partner's retry", 20_000);
  const [first, second] = quick.receiver.requests;
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(DELAYS[0]!);
  expect(second!.at - first!.at).toBeLessThan(DELAYS[0]! + 8_000);
  // The Retry-After is honoured up to the longest tier's delay (here tier 1's), never less than the tier's.
  await waitFor(() => slow.receiver.requests.length >= 2, "the slow partner's retry", 20_000);
  expect(slow.receiver.requests[1]!.at - slow.receiver.requests[0]!.at).toBeGreaterThanOrEqual(DELAYS[0]!);
}, 60_000);

test.each([
  ['a private address', 'http://10.20.30.40/cb'],
  ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
  ['an IPv4-mapped IPv6 private address', 'http://[::ffff:a00:1]/cb'],
])(
  'when the callback URL is %s, then the SSRF guard refuses it and the callback is dead-lettered at once, no retries burnt',
  async (_what, url) => {
    const { partnerId } = await partnerWith(
      () => 200,
      () => url,
    );
    await outbound.events.publish([policyEvent(partnerId)]);
    const dead = await readTopicUntil<{ partner_id: string }>(
      `${outbound.prefix}callback-dlq`,
      (records) => records.some((r) => r.value.partner_id === partnerId),
      30_000,
    );
    const h = dead.find((r) => r.value.partner_id === partnerId)!.headers as Record<string, Buffer>;
    expect(header(h, 'kafka_dlt-exception-fqcn')).toBe('SSRF_REFUSED');
    expect(header(h, 'hookstream-attempts')).toBe('1');
    const outcomes = await outcomesOf(partnerId, (mine) => mine.some((o) => o.outcome === 'DEAD_LETTERED'));
    expect(outcomes.map((o) => [o.outcome, o.error_class])).toEqual([['DEAD_LETTERED', 'SSRF_REFUSED']]);
  },
);

test('the requests and the retry tiers are read by two consumer groups, so the fetches for new callbacks never carry the idle tiers', async () => {
  const group = `${outbound.prefix}hookstream-callback-sender`;
  const admin = outbound.kafka.admin();
  await admin.connect();
  try {
    const assigned = async (groupId: string) => {
      const { members } = await admin.describeGroup(groupId);
      return [...new Set(members.flatMap((m) => m.assignment.map((a) => a.topic)))];
    };
    expect(await assigned(group)).toEqual([`${outbound.prefix}callback-requests`]);
    const tiers = await assigned(`${group}-retries`);
    expect(tiers.sort()).toEqual(DELAYS.map((_, i) => `${outbound.prefix}callback-retry-${i + 1}`).sort());
  } finally {
    await admin.disconnect();
  }
});
