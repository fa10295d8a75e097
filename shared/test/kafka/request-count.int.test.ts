import { Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { registerKafkaRequestCounter } from '../../src/kafka/request-count';
import { testInfrastructure, uniqueName } from '../../../test/helpers/infrastructure';
import { ApiKeys, requestCountingSockets } from '../../../test/helpers/kafka-sockets';

/** The Kafka request counter against a real broker, checked against the requests the client's sockets carried. */
async function counted(registry: Registry): Promise<Map<string, number>> {
  const metric = await registry.getSingleMetric('hookstream_kafka_requests_total')!.get();
  return new Map(metric.values.map((v) => [String(v.labels.api), v.value]));
}

const total = (counts: Iterable<number>) => [...counts].reduce((a, b) => a + b, 0);

test('when a process talks to Kafka, then each request is counted once, under its API', async () => {
  const registry = new Registry();
  registerKafkaRequestCounter(registry);
  const { socketFactory, requests: written } = requestCountingSockets();
  const kafka = new Kafka({
    clientId: uniqueName('request-count'),
    brokers: testInfrastructure().brokers,
    logLevel: logLevel.NOTHING,
    socketFactory,
  });
  const before = await counted(registry);
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.listTopics();
    await admin.describeCluster();
    await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
  const after = await counted(registry);

  const delta = (api: string) => (after.get(api) ?? 0) - (before.get(api) ?? 0);
  expect(written.get(ApiKeys.metadata)).toBeGreaterThanOrEqual(2);
  expect(delta('Metadata')).toBe(written.get(ApiKeys.metadata));
  expect(total(after.values()) - total(before.values())).toBe(total(written.values()));
  expect(delta('Produce')).toBe(0);
});
