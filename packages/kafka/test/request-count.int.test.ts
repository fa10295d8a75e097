import { Registry } from 'prom-client';
import { registerKafkaRequestCounter } from '../src/client';
import { createTopics, testKafka, uniqueName } from '../../../test/helpers/infrastructure';
import { sleep } from '@hookstream/runtime';

/** The Kafka request counter against a real broker, checked against the requests the client's sockets carried. */
async function counted(registry: Registry): Promise<Map<string, number>> {
  const metric = await registry.getSingleMetric('hookstream_kafka_requests_total')!.get();
  return new Map(metric.values.map((v) => [String(v.labels.api), v.value]));
}

test('when a librdkafka producer writes, then its requests are counted from its statistics, each once', async () => {
  const registry = new Registry();
  const kafka = testKafka(uniqueName('request-count-librdkafka'));
  registerKafkaRequestCounter(registry, kafka);
  const topic = uniqueName('request-count');
  await createTopics(kafka, [{ topic }]);
  const before = await counted(registry);
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let i = 0; i < 5; i++) await producer.send({ topic, messages: [{ value: String(i) }] });
    // Statistics come every second: the third report holds every request of the sends above.
    await sleep(2_500);
    const produced = ((await counted(registry)).get('Produce') ?? 0) - (before.get('Produce') ?? 0);
    // Five awaited sends, one request each (the producer's own retries would add more, none expected here).
    expect(produced).toBe(5);
    await sleep(1_200);
    expect(((await counted(registry)).get('Produce') ?? 0) - (before.get('Produce') ?? 0)).toBe(5);
  } finally {
    await producer.disconnect();
  }
});
