/**
 * The delivery log after a Kafka reset under its kept store: the topics it projected are deleted
 * and created again (a topic recreated in production; stack-wipe.int.test.ts wipes a whole stack),
 * and new records land at the offsets of records already projected. They must be projected as new
 * rows (a new generation of their topic), and the old rows stay.
 */
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { storeAt } from '../support/stores';
import { ensureTopics } from '../../../../test/helpers/ingress';
import { testInfrastructure, testKafka, uniqueName, waitFor } from '../../../../test/helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';
import { LogUnderReset } from '../support/log-under-reset';

const prefix = `${uniqueName('log-reset')}.`;
const kafka = testKafka();
let store: DeliveryLogStore;
let database: StateDatabase;
let log: LogUnderReset;

beforeAll(async () => {
  await ensureTopics(prefix);
  database = await freshStateDatabase();
  store = await storeAt(database.url);
  log = new LogUnderReset(store.db, prefix, testInfrastructure().registryUrl);
});

afterAll(async () => {
  await store?.close();
  await database?.drop();
  await stopStateServer();
});

async function recreateTopics(): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [...log.topics.keys()] });
    await waitFor(async () => (await admin.listTopics()).every((t) => !log.topics.has(t)), 'the topics deleted');
  } finally {
    await admin.disconnect();
  }
  // Created again as `hookstream topics ensure` creates missing topics (a deletion may take a moment to settle).
  await waitFor(() => ensureTopics(prefix).then(() => true), 'the topics created again');
}

test('when the topics are created again under a kept store, then records at offsets already projected are new rows and the old rows stay', async () => {
  const before = ['d-old-1', 'd-old-2', 'd-old-3'];
  await log.produce(kafka, before, 'acme');
  await log.project(kafka, () => log.waitForRows(3, 'the first records'));

  await recreateTopics();
  const after = ['d-new-1', 'd-new-2', 'd-new-3'];
  await log.produce(kafka, after, 'acme');
  await log.project(kafka, () => log.waitForRows(6, 'the records of the new topics', 60_000));

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
    [...LogUnderReset.logical].sort().map((topic) => ({ topic, generation: 1 })),
  );
  expect((await log.metrics.topicResets.get()).values.map((v) => v.value)).toEqual([1, 1]);
}, 150_000);

test('when the topics are created again while the projection runs, then it finds the new records at the old offsets too', async () => {
  const rows = async () => (await store.db.selectFrom('delivery_attempts').select('delivery_id').execute()).map((r) => r.delivery_id);
  const held = new Set(await rows());
  await log.project(kafka, async () => {
    await recreateTopics();
    const after = ['d-live-1', 'd-live-2', 'd-live-3'];
    await log.produce(kafka, after, 'acme');
    await log.waitForRows(held.size + 3, 'the records of the topics created under the running projection', 90_000);
  });
  expect((await rows()).filter((id) => !held.has(id)).sort()).toEqual(['d-live-1', 'd-live-2', 'd-live-3']);
}, 150_000);
