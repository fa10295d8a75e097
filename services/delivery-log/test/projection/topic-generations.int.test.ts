/**
 * The delivery log after a Kafka reset under its kept store: the topics it projected are deleted
 * and created again (what `hookstream stack wipe` without the log's store did, or a topic recreated
 * in production), and new records land at the offsets of records already projected. They must be
 * projected as new rows (a new generation of their topic), and the old rows stay.
 */
import {
  AvroCodec,
  Registry,
  TopicNames,
  createLogger,
  defaultSchemasDir,
  topicCatalogue,
  type InboundRejectionValue,
  type Producer,
} from '@hookstream/shared';
import { DeliveryLogProjection } from '../../src/projection/projection';
import { createDeliveryLogMetrics } from '../../src/metrics';
import { openStore, type DeliveryLogStore } from '../../src/store/database';
import { ensureTopics } from '../../../../test/helpers/ingress';
import { testInfrastructure, testKafka, uniqueName, waitFor } from '../../../../test/helpers/infrastructure';
import { attemptOf, callbackRequest } from '../support/callback-facts';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const LOGICAL = [TopicNames.callbackOutcomes, TopicNames.inboundRejections];

const prefix = `${uniqueName('log-reset')}.`;
const kafka = testKafka();
const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
const realName = (logical: string) => topicCatalogue({ prefix }).find((t) => t.name === logical)!.topic;
const topics = new Map(LOGICAL.map((logical) => [realName(logical), logical]));
const registry = new Registry();
const metrics = createDeliveryLogMetrics(registry);
let store: DeliveryLogStore;
let producer: Producer;

beforeAll(async () => {
  await ensureTopics(prefix);
  await codec.registerTopics(topicCatalogue({ prefix }).filter((t) => topics.has(t.topic)));
  store = await openStore({ kind: 'pglite', dataDir: 'memory://' });
  producer = kafka.producer();
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await store?.close();
});

async function project<T>(during: () => Promise<T>): Promise<T> {
  const projection = new DeliveryLogProjection({
    kafka,
    codec,
    db: store.db,
    logger: createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    metrics,
    groupId: `${prefix}delivery-log`,
    session: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
    topics,
    concurrency: 1,
  });
  await projection.start();
  try {
    return await during();
  } finally {
    await projection.stop();
  }
}

/** Attempts of `deliveries` and refusals of `partner`'s webhooks, all on partition 0 (so from offset 0 on a new topic). */
async function produce(deliveries: string[], partner: string): Promise<void> {
  const outcomes = deliveries.map(
    (id) => attemptOf(callbackRequest(id, T0), T0 + 1000, { outcome: 'FAILED_ATTEMPT', httpStatus: 500 }).outcome,
  );
  const rejections = deliveries.map((id): InboundRejectionValue => ({
    rejection_id: `r-${id}`,
    partner_id: partner,
    received_at: T0,
    http_status: 400,
    error_code: 'INVALID_PAYLOAD',
    message: 'refused',
    fields: [],
    request_id: null,
    transaction_number: null,
    payload_fingerprint: null,
    ingress_instance: null,
  }));
  const encoded = async (logical: string, values: object[]) =>
    Promise.all(values.map(async (value) => ({ partition: 0, key: null, value: await codec.encode(realName(logical), value) })));
  await producer.send({ topic: realName(TopicNames.callbackOutcomes), messages: await encoded(TopicNames.callbackOutcomes, outcomes) });
  await producer.send({ topic: realName(TopicNames.inboundRejections), messages: await encoded(TopicNames.inboundRejections, rejections) });
}

const count = async (table: 'delivery_attempts' | 'rejected_webhooks') =>
  (
    await store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
  ).n;

async function recreateTopics(): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [...topics.keys()] });
    await waitFor(async () => (await admin.listTopics()).every((t) => !topics.has(t)), 'the topics deleted');
  } finally {
    await admin.disconnect();
  }
  // Created again as `hookstream topics ensure` creates missing topics (a deletion may take a moment to settle).
  await waitFor(() => ensureTopics(prefix).then(() => true), 'the topics created again');
}

test('when the topics are created again under a kept store, then records at offsets already projected are new rows and the old rows stay', async () => {
  const before = ['d-old-1', 'd-old-2', 'd-old-3'];
  await produce(before, 'acme');
  await project(() =>
    waitFor(async () => (await count('delivery_attempts')) === 3 && (await count('rejected_webhooks')) === 3, 'the first records'),
  );

  await recreateTopics();
  const after = ['d-new-1', 'd-new-2', 'd-new-3'];
  await produce(after, 'acme');
  await project(() =>
    waitFor(
      async () => (await count('delivery_attempts')) === 6 && (await count('rejected_webhooks')) === 6,
      'the records of the new topics',
      60_000,
    ),
  );

  const deliveries = await store.db.selectFrom('deliveries').select(['delivery_id', 'attempt_count']).orderBy('delivery_id').execute();
  expect(deliveries).toEqual([...after, ...before].sort().map((delivery_id) => ({ delivery_id, attempt_count: 1 })));
  // Each record at the same position twice: once per generation of its topic.
  const positions = await store.db.selectFrom('delivery_attempts').select(['source_generation', 'source_offset', 'delivery_id']).execute();
  expect(
    positions
      .filter((p) => p.source_generation === 1)
      .map((p) => p.delivery_id)
      .sort(),
  ).toEqual(after);
  expect(
    positions
      .filter((p) => p.source_generation === 0)
      .map((p) => p.source_offset)
      .sort(),
  ).toEqual([0, 1, 2]);
  expect(await store.db.selectFrom('projected_topics').select(['topic', 'generation']).orderBy('topic').execute()).toEqual(
    [...LOGICAL].sort().map((topic) => ({ topic, generation: 1 })),
  );
  expect((await metrics.topicResets.get()).values.map((v) => v.value)).toEqual([1, 1]);
}, 150_000);
