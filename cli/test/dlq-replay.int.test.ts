/**
 * `hookstream dlq` end to end on the shared stack, with the real policy-status-consumer and
 * callback-sender (retry tiers of 200 ms): callbacks fail into callback-dlq, `list` shows them, the
 * receiver is fixed, `replay` delivers each exactly once, audits it, skips the superseded one; a
 * second replay delivers nothing; --dry-run writes nothing; --rate is honoured; filters select
 * exactly what they say.
 */
import { waitFor } from '../../test/helpers/infrastructure';
import { policyEvent, readTopicUntil, type Receiver } from '../../test/helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../test/helpers/outbound-fixture';
import { dlq, dlqJson, endOffsets, readRequeued, type ListedLetter, type Listing, type ReplayAnswer } from './dlq-cli';

let outbound: OutboundFixture;
/** While true, every test receiver answers 500. */
let broken = true;

beforeAll(async () => {
  outbound = await OutboundFixture.open('dlq', {
    retryDelaysMs: retryTierDelays(200),
    // A partner failing on purpose must not open its circuit: its dead letters would say CIRCUIT_OPEN.
    breaker: { failures: 10_000, openMs: 500 },
  });
  await Promise.all([outbound.startConsumer(), outbound.startSender()]);
}, 120_000);

afterAll(() => outbound?.close());

const topic = (name: string) => `${outbound.prefix}${name}`;

async function brokenPartner(): Promise<{ partnerId: string; receiver: Receiver }> {
  const receiver = await outbound.receiver(() => (broken ? 500 : 200));
  const partnerId = uniquePartnerId('dlq');
  await outbound.onboard(partnerId, { url: `${receiver.url}/cb`, timeout_ms: 2000 });
  return { partnerId, receiver };
}

/** Waits until `dlq list` selects `count` dead letters for the filters, and returns them. */
const listed = (filters: string[], count: number) =>
  waitFor(
    async () => {
      const listing = await dlqJson<Listing>(outbound.prefix, ['list', ...filters]);
      return listing.selected >= count && listing.dead_letters;
    },
    `${count} dead letters for ${filters.join(' ')}`,
    90_000,
  );

type Delivered = { delivery_id: string; outcome: string; attempt: number; partner_id: string };

test('when callbacks die and the receiver is fixed, then replay delivers each exactly once, audited, skips the superseded one, and replaying again delivers nothing', async () => {
  const { partnerId, receiver } = await brokenPartner();
  const first = policyEvent(partnerId, { version: 1 });
  const other = policyEvent(partnerId, { version: 1 });
  await outbound.events.publish([first, other]);
  await listed(['--partner', partnerId], 2);
  // A newer version of the first policy, dead-lettered too: it supersedes version 1.
  await outbound.events.publish([{ ...first, version: 2, policy: { ...first.policy, status: 'POLICY_CANCELLED' } }]);
  const letters = await listed(['--partner', partnerId], 3);
  expect(letters).toHaveLength(3);
  for (const letter of letters) {
    expect(letter).toMatchObject({ attempts: 9, last_http_status: 500, error_class: 'HTTP_STATUS', replayed: false, replay_count: 0 });
  }
  const superseded = letters.find((l) => l.policy_number === first.policy.policy_number && l.policy_version === 1)!;
  const toDeliver = letters.filter((l) => l !== superseded);

  const watched = [topic('callback-requests'), topic('dlq-replay-audit')];
  const beforeDryRun = await endOffsets(outbound.kafka, watched);
  const dry = await dlqJson<ReplayAnswer>(outbound.prefix, ['replay', '--partner', partnerId, '--dry-run']);
  expect(dry.counts).toMatchObject({ replayed: 2, 'skipped-superseded': 1 });
  expect(await endOffsets(outbound.kafka, watched)).toEqual(beforeDryRun);

  broken = false;
  const attemptsBefore = receiver.requests.length;
  const replay = await dlqJson<ReplayAnswer>(outbound.prefix, ['replay', '--partner', partnerId, '--reason', 'receiver fixed', '--yes']);
  expect(replay.counts).toEqual({
    replayed: 2,
    'skipped-superseded': 1,
    'skipped-already-replayed': 0,
    'skipped-replay-limit': 0,
    failed: 0,
  });

  const delivered = await readTopicUntil<Delivered>(topic('callback-outcomes'), (records) =>
    toDeliver.every((l) => records.some((r) => r.value.delivery_id === l.delivery_id && r.value.outcome === 'DELIVERED')),
  );
  const fresh = receiver.requests.slice(attemptsBefore);
  expect(fresh.map((r) => r.headers['x-hookstream-delivery-id']).sort()).toEqual(toDeliver.map((l) => l.delivery_id).sort());
  expect(fresh.map((r) => r.headers['x-hookstream-attempt'])).toEqual(['1', '1']);
  expect(delivered.filter((r) => r.value.outcome === 'DELIVERED' && r.value.partner_id === partnerId)).toHaveLength(2);

  const audit = await dlqJson<Array<Record<string, unknown>>>(outbound.prefix, ['audit', '--replay-id', replay.replay_id!]);
  expect(audit.map((e) => [e.outcome, e.source_partition, String(e.source_offset)]).sort()).toEqual(
    [
      ['replayed', toDeliver[0]!.partition, toDeliver[0]!.offset],
      ['replayed', toDeliver[1]!.partition, toDeliver[1]!.offset],
      ['skipped-superseded', superseded.partition, superseded.offset],
    ].sort(),
  );
  expect(audit.every((e) => e.reason === 'receiver fixed' && e.source_topic === 'callback-dlq' && e.dry_run === false)).toBe(true);
  const afterList = await dlqJson<Listing>(outbound.prefix, ['list', '--partner', partnerId]);
  expect(
    afterList.dead_letters
      .filter((l) => l.replayed)
      .map((l) => l.delivery_id)
      .sort(),
  ).toEqual(toDeliver.map((l) => l.delivery_id).sort());

  const requeuedBefore = await endOffsets(outbound.kafka, [topic('callback-requests')]);
  const again = await dlqJson<ReplayAnswer>(outbound.prefix, ['replay', '--partner', partnerId, '--reason', 'once more', '--yes']);
  expect(again.counts).toMatchObject({ replayed: 0, 'skipped-already-replayed': 2, 'skipped-superseded': 1 });
  expect(await endOffsets(outbound.kafka, [topic('callback-requests')])).toEqual(requeuedBefore);
  expect(receiver.requests.length).toBe(attemptsBefore + 2);
}, 240_000);

test('when a replayed callback fails again, then its new dead letter carries the replay count, and --rate paces the re-queue', async () => {
  broken = true;
  const { partnerId } = await brokenPartner();
  const count = 16;
  await outbound.events.publish(Array.from({ length: count }, () => policyEvent(partnerId)));
  await listed(['--partner', partnerId], count);

  const rate = 8;
  const replay = await dlqJson<ReplayAnswer>(outbound.prefix, [
    'replay',
    '--partner',
    partnerId,
    '--reason',
    'pace',
    '--rate',
    `${rate}/s`,
    '--yes',
  ]);
  expect(replay.counts.replayed).toBe(count);
  // When each re-queued record was written: its Kafka timestamp on callback-requests.
  const at = (await readRequeued(outbound.kafka, topic('callback-requests')))
    .filter((r) => r.replayId === replay.replay_id)
    .map((r) => r.timestamp)
    .sort((x, y) => x - y);
  expect(at).toHaveLength(count);
  const spreadMs = at.at(-1)! - at[0]!;
  const idealMs = ((count - 1) / rate) * 1000; // 1,875 ms; unpaced, the same writes take well under 300 ms
  expect(spreadMs).toBeGreaterThanOrEqual(idealMs * 0.9);
  expect(spreadMs).toBeLessThan(idealMs + 3_000);

  // Still broken: every replayed delivery dies again, and says it was replayed once.
  const again = await listed(['--partner', partnerId, '--since', new Date(at[0]!).toISOString()], count);
  expect(again.every((l) => l.replay_count === 1)).toBe(true);
}, 240_000);

test('when filters are given, then list selects exactly the dead letters they describe', async () => {
  broken = true;
  const a = await brokenPartner();
  const b = await brokenPartner();
  // An endpoint the SSRF guard refuses: dead-lettered at once, after one attempt and no HTTP answer.
  const refused = uniquePartnerId('dlq-ssrf');
  await outbound.onboard(refused, { url: 'http://10.20.30.40/cb' });
  await outbound.events.publish([policyEvent(a.partnerId), policyEvent(a.partnerId), policyEvent(b.partnerId), policyEvent(refused)]);
  const mine = [a.partnerId, b.partnerId, refused];
  const all: ListedLetter[] = await listed(['--partner', mine.join(',')], 4);
  const select = async (filters: string[]) =>
    (await dlqJson<Listing>(outbound.prefix, ['list', '--partner', mine.join(','), ...filters])).dead_letters
      .map((l) => `${l.partition}:${l.offset}`)
      .sort();
  const expected = (keep: (l: ListedLetter) => boolean) =>
    all
      .filter(keep)
      .map((l) => `${l.partition}:${l.offset}`)
      .sort();

  const one = all.find((l) => l.partner_id === b.partnerId)!;
  const cases: Array<[string[], (l: ListedLetter) => boolean]> = [
    [['--partner', a.partnerId], (l) => l.partner_id === a.partnerId],
    [['--error-class', 'SSRF_REFUSED'], (l) => l.error_class === 'SSRF_REFUSED'],
    [['--last-status', '500'], (l) => l.last_http_status === 500],
    [['--policy', one.policy_number!], (l) => l.policy_number === one.policy_number],
    [['--event-id', one.event_id!], (l) => l.event_id === one.event_id],
    [['--delivery-id', one.delivery_id!], (l) => l.delivery_id === one.delivery_id],
    [['--offsets', `${one.partition}:${one.offset}`], (l) => l === one],
    [['--since', one.dead_lettered_at], (l) => l.dead_lettered_at >= one.dead_lettered_at],
    [['--until', one.dead_lettered_at], (l) => l.dead_lettered_at < one.dead_lettered_at],
    [['--partner', a.partnerId, '--last-status', '500', '--error-class', 'HTTP_STATUS'], (l) => l.partner_id === a.partnerId],
  ];
  for (const [filters, keep] of cases) expect([filters, await select(filters)]).toEqual([filters, expected(keep)]);
  expect(expected((l) => l.error_class === 'SSRF_REFUSED')).toHaveLength(1);
  expect(all.find((l) => l.error_class === 'SSRF_REFUSED')).toMatchObject({ attempts: 1, last_http_status: null });
}, 240_000);

test('when show is given a delivery id, then it prints the body to be sent, why it failed, and every attempt from callback-outcomes', async () => {
  broken = true;
  const { partnerId } = await brokenPartner();
  await outbound.events.publish([policyEvent(partnerId)]);
  const [letter] = await listed(['--partner', partnerId], 1);
  const shown = await dlqJson<{
    bodies: Array<{ body: string; note: string }>;
    history: Record<string, unknown>;
    outcomes: Array<{ attempt: number; outcome: string; http_status: number | null }>;
    headers: Record<string, string>;
  }>(outbound.prefix, ['show', letter!.delivery_id!]);
  expect(JSON.parse(shown.bodies[0]!.body)).toMatchObject({ policy_number: letter!.policy_number });
  expect(shown.bodies[0]!.note).toContain('signed afresh with API_KEY');
  expect(shown.history).toMatchObject({ attempts: 9, last_error: '9 attempts failed; the last: HTTP 500' });
  expect(shown.headers['kafka_dlt-original-topic']).toBe(topic('callback-requests'));
  expect(shown.outcomes.filter((o) => o.outcome === 'FAILED_ATTEMPT').map((o) => o.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(shown.outcomes.at(-1)).toMatchObject({ outcome: 'DEAD_LETTERED', attempt: 9, http_status: 500 });
  const byCoordinates = await dlq(outbound.prefix, ['show', `${letter!.partition}:${letter!.offset}`]);
  expect(byCoordinates.code).toBe(0);
  expect(byCoordinates.stdout).toContain(letter!.delivery_id!);
}, 120_000);
