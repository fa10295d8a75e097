/**
 * Hookstream's Admin against the real broker: librdkafka's admin for topics and offsets,
 * Platformatic's client for configs and the cluster's description, one error model for both.
 */
import { createKafkaClient, type Admin } from '@hookstream/kafka';
import { createLogger, freePort } from '@hookstream/runtime';
import { createTopics, testInfrastructure, testKafka, uniqueName } from './helpers/infrastructure';

const kafka = testKafka();
let admin: Admin;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});

afterAll(() => admin?.disconnect());

test('when one config of a topic is set, then its other overrides stay as they were', async () => {
  const topic = uniqueName('admin-configs');
  await createTopics(kafka, [{ topic, config: { 'retention.ms': '123456789', 'cleanup.policy': 'compact' } }]);

  await admin.setTopicConfigs(topic, [{ name: 'max.message.bytes', value: '200000' }]);

  const config = (await admin.describeTopicConfigs([topic])).get(topic)!;
  expect(config.get('max.message.bytes')).toBe('200000');
  expect(config.get('retention.ms')).toBe('123456789');
  expect(config.get('cleanup.policy')).toBe('compact');
});

test('when the cluster is described, then it names the broker the tests reach, and a controller among the brokers', async () => {
  const cluster = await admin.describeCluster();
  expect(cluster.clusterId).toMatch(/\S/);
  const addresses = cluster.brokers.map((b) => `${b.host}:${b.port}`);
  expect(addresses).toEqual(expect.arrayContaining(testInfrastructure().brokers));
  expect(cluster.brokers.map((b) => b.nodeId)).toContain(cluster.controller);
});

test('when a transaction is open, then the read_committed end is the last stable offset, before its records', async () => {
  const topic = uniqueName('admin-lso');
  await createTopics(kafka, [{ topic }]);
  const plain = kafka.producer();
  await plain.connect();
  await plain.send({ topic, messages: ['a', 'b', 'c'].map((value) => ({ value })) });
  await plain.disconnect();

  const producer = kafka.producer({ transactionalId: uniqueName('admin-lso-tx') });
  await producer.connect();
  const tx = await producer.transaction();
  try {
    await tx.send({ topic, messages: [{ value: 'open 1' }, { value: 'open 2' }] });

    const [committed] = await admin.fetchTopicOffsets(topic);
    expect(committed).toMatchObject({ partition: 0, low: '0', high: '3' });
    const [uncommitted] = await admin.fetchTopicOffsets(topic, { readUncommitted: true });
    expect(uncommitted).toMatchObject({ partition: 0, low: '0', high: '5' });
  } finally {
    await tx.abort();
    await producer.disconnect();
  }
});

test('when an admin without retries connects to a port nobody listens on, then it fails within 5 s, as Kafka unreachable', async () => {
  const port = await freePort();
  const nowhere = createKafkaClient({
    brokers: [`127.0.0.1:${port}`],
    clientId: uniqueName('admin-nowhere'),
    logger: createLogger({ service: 'test', level: 'silent' }),
  }).admin({ retries: 0 });
  const started = Date.now();
  const failure = await nowhere.connect().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(Date.now() - started).toBeLessThan(5000);
  // librdkafka's code for a transport failure: retryable, as for a producer.
  expect(failure).toMatchObject({ name: 'KafkaAdminError', code: -195, cause: { message: expect.stringContaining('ECONNREFUSED') } });
  await nowhere.disconnect();
});

test('when a topic does not exist, then both clients fail with Kafka error code 3', async () => {
  const missing = uniqueName('admin-missing');
  const once = kafka.admin({ retries: 0 });
  await once.connect();
  try {
    await expect(once.fetchTopicOffsets(missing)).rejects.toMatchObject({ name: 'KafkaAdminError', code: 3 });
    await expect(once.describeTopicConfigs([missing])).rejects.toMatchObject({ name: 'KafkaAdminError', code: 3 });
  } finally {
    await once.disconnect();
  }
});
