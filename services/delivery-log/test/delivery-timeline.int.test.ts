/**
 * A delivery's timeline on the real pipeline: a policy-status record written by the test with its
 * own timestamp (the core system's publish time), fanned out by the policy-status-consumer, sent by
 * the callback-sender to a partner that fails the first send and accepts the retry from tier 1,
 * projected by the delivery log into PostgreSQL and read back from the partner and operator APIs.
 */
import { AvroCodec, defaultSchemasDir, topicCatalogue } from '@hookstream/kafka';
import { parsePolicyEventJson } from '@hookstream/contract';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { policyEvent, type Receiver } from '../../../test/helpers/outbound';
import { testInfrastructure, waitFor } from '../../../test/helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';
import { runCli } from '../../../test/helpers/processes';

interface Step {
  name: string;
  at: string;
  ms: number | null;
  attempt: number | null;
  tier: number | null;
  clocks_disagree: boolean;
}
interface Detail {
  state: string;
  timeline: Step[];
  time_to_deliver_ms: number | null;
}

/** Tier 1's delay: the wait the timeline must show between the failure and the retry. */
const RETRY_DELAY_MS = 800;
/** How long before the test's write the core system "published" the event: a gap no clock drift on one machine explains. */
const PUBLISHED_AGO_MS = 3_000;
/** How far a step recorded by another process may be from the time the test saw it happen. */
const SLACK_MS = 250;

let fixture: OutboundFixture;
let database: StateDatabase;
let partner: Receiver;
let logUrl: string;
let apiKey: string;
let partnerId: string;

beforeAll(async () => {
  fixture = await OutboundFixture.open('timeline', {
    retryDelaysMs: retryTierDelays(RETRY_DELAY_MS),
    breaker: { failures: 100, openMs: 1_000 },
  });
  // The partner fails the first callback it gets (HTTP 500), then answers 200.
  partner = await fixture.receiver((_request, index) => (index === 0 ? 500 : 200));
  partnerId = uniquePartnerId('timeline');
  apiKey = await fixture.partners.create(partnerId, {
    callback_endpoints: [{ url: `${partner.url}/callbacks` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  database = await freshStateDatabase();
  const [, , log] = await Promise.all([
    fixture.startConsumer(),
    fixture.startSender(),
    fixture.startDeliveryLog({ DELIVERY_LOG_DATABASE_URL: database.url }),
  ]);
  logUrl = log.url;
}, 180_000);

afterAll(async () => {
  await fixture?.close();
  await database?.drop();
  await stopStateServer();
});

/** Writes `event` to policy-status as the core system would, with its Kafka timestamp set to `publishedAt`. */
async function publish(event: ReturnType<typeof policyEvent>, publishedAt: number): Promise<void> {
  const topic = topicCatalogue({ prefix: fixture.prefix }).find((t) => t.name === 'policy-status')!;
  const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  await codec.registerTopics([topic]);
  const producer = fixture.kafka.producer();
  await producer.connect();
  try {
    const value = await codec.encode(topic.topic, parsePolicyEventJson(event));
    await producer.send({ topic: topic.topic, messages: [{ key: event.policy.policy_number, value, timestamp: String(publishedAt) }] });
  } finally {
    await producer.disconnect();
  }
}

async function read<T>(path: string, headers: Record<string, string>): Promise<T> {
  const response = await fetch(`${logUrl}${path}`, { headers });
  if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: T }).data;
}

test('when a delivery fails once and is delivered from its retry tier, then its timeline has every step in order with the times they took', async () => {
  const event = policyEvent(partnerId);
  const publishedAt = Date.now() - PUBLISHED_AGO_MS;
  const written = Date.now();
  await publish(event, publishedAt);

  const partnerHeaders = { 'x-api-key': apiKey };
  const [listed] = await waitFor(
    async () => {
      const rows = await read<Array<{ delivery_id: string; state: string }>>(
        `/api/portal/v1/deliveries?policy_number=${encodeURIComponent(event.policy.policy_number)}`,
        partnerHeaders,
      );
      return rows[0]?.state === 'delivered' ? rows : undefined;
    },
    'the delivery delivered in the log',
    60_000,
  );
  const detail = await read<Detail>(`/api/portal/v1/deliveries/${listed!.delivery_id}`, partnerHeaders);

  const steps = detail.timeline;
  expect(steps.map((s) => [s.name, s.attempt, s.tier])).toEqual([
    ['published', null, null],
    ['fanned_out', null, null],
    ['attempt_sent', 1, 0],
    ['attempt_answered', 1, 0],
    ['waited_in_tier', null, 1],
    ['attempt_sent', 2, 1],
    ['delivered', 2, 1],
  ]);
  const times = steps.map((s) => Date.parse(s.at));
  // The publish is the record's own timestamp, to the millisecond; the fan-out came after the test wrote it.
  expect(times[0]).toBe(publishedAt);
  expect(times[1]).toBeGreaterThanOrEqual(written - 1_000);
  expect(steps[1]!.ms).toBeGreaterThanOrEqual(PUBLISHED_AGO_MS - 1_000);
  // Each send was answered after the partner got it, and started about when it got it: a send's
  // start is its answer's record less its latency, so it is late by as long as the sender took to
  // record the answer (a few ms here; SLACK_MS allows for a busy machine).
  const [first, second] = partner.requests;
  for (const [sent, received] of [
    [2, first!],
    [5, second!],
  ] as const) {
    expect(times[sent]).toBeLessThanOrEqual(received.at + SLACK_MS);
    expect(times[sent]).toBeGreaterThanOrEqual(received.at - SLACK_MS);
    expect(times[sent + 1]).toBeGreaterThanOrEqual(received.at);
  }
  // The wait in tier 1 is its delay, and the retry was sent once it was due (within the sender's pick-up).
  expect(steps[4]!.ms).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 50);
  expect(steps[4]!.ms).toBeLessThan(RETRY_DELAY_MS + 1_000);
  expect(steps[5]!.ms).toBeLessThan(5_000);
  // In order, gaps are what the times say, nothing negative, no clock flagged on one machine.
  for (let i = 1; i < steps.length; i++) {
    expect(steps[i]!.ms).toBe(times[i]! - times[i - 1]!);
    expect(steps[i]!.clocks_disagree).toBe(false);
  }
  expect(detail.time_to_deliver_ms).toBe(times[6]! - publishedAt);

  // The operator API answers the same timeline.
  const created = await runCli(['operators', 'create', '--name', 'Tim Line', '--role', 'viewer', '--json'], {
    env: { ...process.env, ...fixture.env, TOPIC_PREFIX: fixture.prefix },
  });
  expect(created.code).toBe(0);
  const token = (JSON.parse(created.stdout) as { token: string }).token;
  const operatorView = await read<Detail>(`/api/admin/v1/deliveries/${listed!.delivery_id}`, { authorization: `Bearer ${token}` });
  expect(operatorView.timeline).toEqual(steps);
}, 120_000);
