import { Registry, type Logger } from '@hookstream/runtime';
import { type AvroCodec, type Producer } from '@hookstream/kafka';
import type { WebhookRejection } from '../src/domain/webhook-rejection';
import { createIngressMetrics } from '../src/metrics';
import { PartnerTokenBuckets } from '../src/adapters/kafka/partner-token-buckets';
import { answerPublishers } from '../src/adapters/kafka/answer-publishers';
import type { BoundedPublisherOptions } from '../src/adapters/kafka/bounded-publisher';
import type { WebhookReplay } from '../src/domain/webhook-replay';

/**
 * The bounds on recording answers (refusals, replays): a partner's bucket (a burst, then a steady rate, each partner
 * on its own), the cap on records not yet acknowledged, and failures that are counted, logged at
 * most once a minute and never thrown at the caller.
 */

type SentRecord = Parameters<Producer['send']>[0];

const rejection = (partnerId: string): WebhookRejection => ({
  partner_id: partnerId,
  received_at: 1_767_840_000_000,
  http_status: 400,
  error_code: 'INVALID_PAYLOAD_VALIDATION_ERR',
  message: 'transaction_number is required',
  fields: ['transaction_number'],
  request_id: 'req-1',
  transaction_number: null,
  payload_fingerprint: 'f'.repeat(64),
});

/** A producer that notes what it is sent and answers as `answer` says. */
function fakeProducer(answer: () => Promise<unknown> = () => Promise.resolve([]), reachable = () => true) {
  const sent: SentRecord[] = [];
  const producer = {
    reachable,
    send: (record: SentRecord) => {
      sent.push(record);
      return answer();
    },
  } as unknown as Producer;
  return { producer, sent };
}

/** JSON instead of Avro: what was encoded can be read back. */
const codec = {
  encode: (_topic: string, value: unknown) => Promise.resolve(Buffer.from(JSON.stringify(value))),
  registerTopics: () => Promise.resolve(),
} as unknown as AvroCodec;

type PublisherOptions = Pick<BoundedPublisherOptions<unknown, never>, 'producer' | 'limits' | 'maxUnsent' | 'nowMs'>;

/** The ingress's rejections publisher as main wires it, with its bounds as the test sets them. */
async function publisher({ producer, ...bounds }: PublisherOptions) {
  const registry = new Registry();
  const metrics = createIngressMetrics(registry);
  const warnings: Array<Record<string, unknown>> = [];
  // A logger that keeps the warnings (the publisher logs through a child of it).
  const child = { warn: (fields: Record<string, unknown>) => warnings.push(fields) };
  const logger = { child: () => child } as unknown as Logger;
  const wired = await answerPublishers({ producer, codec, topicPrefix: 't.', instanceId: 'ingress-1', logger, metrics, bounds });
  const recorder = wired.rejections;
  const dropped = async (reason: string) =>
    (await metrics.rejectionsDropped.get()).values.find((v) => v.labels['reason'] === reason)?.value ?? Number.NaN;
  const recorded = async () => (await metrics.rejectionsRecorded.get()).values[0]?.value ?? 0;
  return { recorder, dropped, recorded, warnings, metrics, replays: wired.replays };
}

describe('PartnerTokenBuckets', () => {
  test('a partner takes its burst at once, then one token per refill interval; the bucket never holds more than the burst', () => {
    let now = 0;
    const buckets = new PartnerTokenBuckets({ burst: 20, perSecond: 1 }, () => now);
    const takes = (n: number) => Array.from({ length: n }, () => buckets.take('acme')).filter(Boolean).length;
    expect(takes(25)).toBe(20);
    now += 999;
    expect(buckets.take('acme')).toBe(false);
    now += 1;
    expect(takes(3)).toBe(1);
    // An hour idle refills to the burst, not to 3,600.
    now += 3600_000;
    expect(takes(100)).toBe(20);
  });

  test("one partner's empty bucket leaves another's full", () => {
    const buckets = new PartnerTokenBuckets({ burst: 2, perSecond: 1 }, () => 0);
    expect([buckets.take('flood'), buckets.take('flood'), buckets.take('flood')]).toEqual([true, true, false]);
    expect([buckets.take('quiet'), buckets.take('quiet')]).toEqual([true, true]);
  });

  test('a clock that goes back takes no tokens away', () => {
    let now = 10_000;
    const buckets = new PartnerTokenBuckets({ burst: 1, perSecond: 1 }, () => now);
    expect(buckets.take('acme')).toBe(true);
    now = 0;
    expect(buckets.take('acme')).toBe(false);
    now = 1000;
    expect(buckets.take('acme')).toBe(true);
  });
});

describe('BoundedPublisher', () => {
  test('each kept rejection is sent keyed by partner id with an id and the replica; over the bucket it is dropped, counted, not even described', async () => {
    const { producer, sent } = fakeProducer();
    const { recorder, dropped, recorded } = await publisher({ producer, limits: { burst: 3, perSecond: 1 }, nowMs: () => 0 });
    let described = 0;
    for (let i = 0; i < 5; i++) recorder.record('acme', () => (described++, rejection('acme')));
    recorder.record('other', () => rejection('other'));
    await recorder.flush();
    expect(described).toBe(3);
    expect(sent.map((s) => [s.topic, s.messages[0]!.key])).toEqual([
      ['t.inbound-rejections', 'acme'],
      ['t.inbound-rejections', 'acme'],
      ['t.inbound-rejections', 'acme'],
      ['t.inbound-rejections', 'other'],
    ]);
    const value = JSON.parse(String(sent[0]!.messages[0]!.value)) as Record<string, unknown>;
    expect(value).toEqual({ ...rejection('acme'), rejection_id: expect.stringMatching(/^[0-9a-f-]{36}$/), ingress_instance: 'ingress-1' });
    expect(await recorded()).toBe(4);
    expect(await dropped('partner_limit')).toBe(2);
    expect(await dropped('unsent_limit')).toBe(0);
  });

  test('while Kafka does not acknowledge, at most maxUnsent wait; the rest are dropped as unsent_limit, and room comes back once acknowledged', async () => {
    const acknowledge: Array<() => void> = [];
    const { producer, sent } = fakeProducer(() => new Promise((resolve) => acknowledge.push(() => resolve([]))));
    const { recorder, dropped, recorded } = await publisher({ producer, maxUnsent: 2, limits: { burst: 100, perSecond: 1 } });
    for (const partner of ['a', 'b', 'c', 'd']) recorder.record(partner, () => rejection(partner));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((s) => s.messages[0]!.key)).toEqual(['a', 'b']);
    expect(await dropped('unsent_limit')).toBe(2);
    acknowledge.forEach((ack) => ack());
    await recorder.flush();
    recorder.record('e', () => rejection('e'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((s) => s.messages[0]!.key)).toEqual(['a', 'b', 'e']);
    acknowledge[2]!();
    await recorder.flush();
    expect(await recorded()).toBe(3);
  });

  test('failed writes never reach the caller: each is counted, and logged at most once a minute with how many failed', async () => {
    let now = 0;
    const { producer } = fakeProducer(() => Promise.reject(new Error('broker said no')));
    const { recorder, dropped, warnings } = await publisher({ producer, limits: { burst: 100, perSecond: 1 }, nowMs: () => now });
    for (let i = 0; i < 5; i++) expect(() => recorder.record('acme', () => rejection('acme'))).not.toThrow();
    await recorder.flush();
    now += 30_000;
    recorder.record('acme', () => rejection('acme'));
    await recorder.flush();
    expect(warnings).toHaveLength(1);
    now += 30_000;
    recorder.record('acme', () => rejection('acme'));
    await recorder.flush();
    expect(await dropped('publish_failed')).toBe(7);
    expect(warnings.map((w) => w['failures'])).toEqual([1, 6]);
    expect(JSON.stringify(warnings)).toContain('broker said no');
  });

  test('with no leader of the topic connected nothing is sent: the rejection is dropped at once as publish_failed', async () => {
    const { producer, sent } = fakeProducer(undefined, () => false);
    const { recorder, dropped } = await publisher({ producer });
    recorder.record('acme', () => rejection('acme'));
    await recorder.flush();
    expect(sent).toEqual([]);
    expect(await dropped('publish_failed')).toBe(1);
  });

  test('a description that throws is a dropped rejection, not an error of the caller', async () => {
    const { producer, sent } = fakeProducer();
    const { recorder, dropped } = await publisher({ producer });
    expect(() =>
      recorder.record('acme', () => {
        throw new Error('cannot describe');
      }),
    ).not.toThrow();
    await recorder.flush();
    expect(sent).toEqual([]);
    expect(await dropped('publish_failed')).toBe(1);
  });
});

describe('the replays publisher', () => {
  const replay = (partnerId: string): WebhookReplay => ({
    partner_id: partnerId,
    received_at: 1_767_840_000_000,
    request_id: 'req-1',
    transaction_number: 'TX-1',
    payload_fingerprint: 'f'.repeat(64),
  });

  test('a replay goes to inbound-replays keyed by partner id with an id and the replica, counted on its own metrics, bounded per partner', async () => {
    const { producer, sent } = fakeProducer();
    const { replays, metrics } = await publisher({ producer, limits: { burst: 2, perSecond: 1 }, nowMs: () => 0 });
    for (let i = 0; i < 3; i++) replays.record('acme', () => replay('acme'));
    await replays.flush();
    expect(sent.map((s) => [s.topic, s.messages[0]!.key])).toEqual([
      ['t.inbound-replays', 'acme'],
      ['t.inbound-replays', 'acme'],
    ]);
    const value = JSON.parse(String(sent[0]!.messages[0]!.value)) as Record<string, unknown>;
    expect(value).toEqual({ ...replay('acme'), replay_id: expect.stringMatching(/^[0-9a-f-]{36}$/), ingress_instance: 'ingress-1' });
    expect((await metrics.replaysRecorded.get()).values[0]?.value).toBe(2);
    expect((await metrics.replaysDropped.get()).values.find((v) => v.labels['reason'] === 'partner_limit')?.value).toBe(1);
    expect((await metrics.rejectionsRecorded.get()).values[0]?.value ?? 0).toBe(0);
  });
});
