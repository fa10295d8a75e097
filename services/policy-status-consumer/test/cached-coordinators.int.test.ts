import type { Kafka, Producer } from 'kafkajs';
import { createTopics, testKafka, uniqueName } from '../../../test/helpers/infrastructure';
import { withCachedCoordinators } from '../src/kafka/cached-coordinators';

/**
 * The transactional producers' coordinator lookups are cached (kafkajs alone sends FindCoordinator
 * before every coordinator request), and transactions through the cached view still commit their
 * records and offsets.
 */
const kafka = testKafka();
const topic = uniqueName('cached-coordinators');
const groupId = uniqueName('cached-coordinators-group');
const TRANSACTIONS = 5;
/** kafkajs's name for a FindCoordinator request (its v0 name). */
const FIND_COORDINATOR = 'GroupCoordinator';

beforeAll(async () => {
  await createTopics(kafka, [{ topic }]);
});

/**
 * Runs TRANSACTIONS transactions, each a record and an offset, a moment apart (as batches come);
 * returns how many FindCoordinator and Metadata requests they made.
 */
async function requestsFor(client: Kafka, transactionalId: string): Promise<{ lookups: number; refreshes: number }> {
  const producer: Producer = client.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const counts = { lookups: 0, refreshes: 0 };
  producer.on(producer.events.REQUEST, ({ payload }) => {
    if (payload.apiName === FIND_COORDINATOR) counts.lookups += 1;
    if (payload.apiName === 'Metadata') counts.refreshes += 1;
  });
  try {
    for (let i = 0; i < TRANSACTIONS; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const transaction = await producer.transaction();
      await transaction.send({ topic, messages: [{ key: transactionalId, value: String(i) }], acks: -1 });
      await transaction.sendOffsets({
        consumerGroupId: groupId,
        topics: [{ topic, partitions: [{ partition: 0, offset: String(i + 1) }] }],
      });
      await transaction.commit();
    }
  } finally {
    await producer.disconnect();
  }
  return counts;
}

test('given the plain client, then each transaction looks its coordinators up again (what the cache is for)', async () => {
  const { lookups } = await requestsFor(kafka.kafkajs, uniqueName('plain'));
  expect(lookups).toBeGreaterThanOrEqual(TRANSACTIONS * 4);
});

test('given the cached view, then the coordinators are looked up once each and the transactions commit', async () => {
  const cached = withCachedCoordinators(kafka.kafkajs, 60_000);
  expect(cached).toBeDefined();
  const { lookups, refreshes } = await requestsFor(cached!, uniqueName('cached'));
  // One lookup of the transaction coordinator and one of the group coordinator, again after each
  // metadata refresh (the first send's, and kafkajs's after a retriable error such as
  // CONCURRENT_TRANSACTIONS, when a transaction starts while the last one's markers are written).
  expect(lookups).toBeLessThanOrEqual(2 * (1 + refreshes));
  expect(lookups).toBeLessThan(TRANSACTIONS * 4);

  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(offsets!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: String(TRANSACTIONS) })]);
    const [end] = await admin.fetchTopicOffsets(topic);
    // Both tests' records and one commit marker after each transaction.
    expect(Number(end!.offset)).toBe(TRANSACTIONS * 2 * 2);
  } finally {
    await admin.disconnect();
  }
});
