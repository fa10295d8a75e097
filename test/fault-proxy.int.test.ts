import { createKafkaClient, TopicReader, type Kafka, type KafkaMessage } from '@hookstream/kafka';
import { createLogger, sleep } from '@hookstream/runtime';
import { createTopics, uniqueName, waitFor } from './helpers/infrastructure';
import { startProxiedBroker, type ProxiedBroker } from './helpers/proxied-broker';

/**
 * Faults between the project's Kafka client and a real broker, made by a TCP proxy in between (no
 * part of the client is tapped or replaced, so these tests judge whichever client the project uses):
 * a Produce the broker wrote whose answer never arrives, a connection that stalls, connections cut.
 */
const logger = createLogger({ service: 'test', level: 'silent' });
let broker: ProxiedBroker;
let kafka: Kafka;

beforeAll(async () => {
  broker = await startProxiedBroker();
  kafka = createKafkaClient({ brokers: broker.brokers, clientId: uniqueName('faults'), logger });
}, 120_000);

afterAll(async () => {
  await broker?.stop();
});

afterEach(() => broker.proxy.resume());

/** Every value on `topic`, read to its end through the proxy. */
async function valuesOf(topic: string): Promise<string[]> {
  const values: string[] = [];
  const reader = new TopicReader({ kafka, logger, topic, apply: async (messages) => void values.push(...messages.map(text)) });
  await reader.start();
  await reader.stop();
  return values;
}

const text = (m: KafkaMessage) => m.value!.toString();

async function producerTo(): Promise<{ topic: string; send: (value: string) => Promise<unknown>; close: () => Promise<void> }> {
  const topic = uniqueName('faults');
  await createTopics(kafka, [{ topic }]);
  const producer = kafka.producer();
  await producer.connect();
  return {
    topic,
    send: (value) => producer.send({ topic, messages: [{ value }] }),
    close: () => producer.disconnect(),
  };
}

describe('a write whose answer is lost', () => {
  test('when the answer to a write the broker made is lost, then the retried send is acknowledged and the record is written once', async () => {
    const { topic, send, close } = await producerTo();
    try {
      await send('first');
      broker.proxy.dropProduceAnswers(1);
      await send('second');
      expect(broker.proxy.droppedProduceAnswers).toBeGreaterThanOrEqual(1);
      await send('third');
      expect(await valuesOf(topic)).toEqual(['first', 'second', 'third']);
    } finally {
      await close();
    }
  });

  test('when answers are lost while sends keep coming, then every acknowledged record is written, once', async () => {
    const { topic, send, close } = await producerTo();
    try {
      await send('first');
      broker.proxy.dropProduceAnswers(3);
      const values = Array.from({ length: 12 }, (_, i) => `v${i}`);
      const outcomes = await Promise.allSettled(values.map((v, i) => sleep(i * 20).then(() => send(v))));
      const acknowledged = values.filter((_, i) => outcomes[i]!.status === 'fulfilled');
      const written = await valuesOf(topic);
      for (const value of acknowledged) expect(written).toContain(value);
      expect(new Set(written).size).toBe(written.length);
      expect(acknowledged.length).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });
});

describe('a whole-topic reader', () => {
  test('when its connection stalls, then it stops being current; when traffic flows again, it is current and reads what came meanwhile', async () => {
    const { topic, send, close } = await producerTo();
    const seen: string[] = [];
    const reader = new TopicReader({ kafka, logger, topic, apply: async (messages) => void seen.push(...messages.map(text)) });
    try {
      await send('before');
      await reader.start();
      expect(reader.isCurrent(1_000)).toBe(true);
      broker.proxy.stall();
      await waitFor(() => !reader.isCurrent(1_000), 'the stalled reader to stop being current', 10_000);
      broker.proxy.resume();
      await send('after');
      await waitFor(() => reader.isCurrent(1_000) && seen.includes('after'), 'the reader to be current again and read on', 15_000);
      expect(seen).toEqual(['before', 'after']);
    } finally {
      await reader.stop();
      await close();
    }
  });

  test('when its connections are cut, then it reconnects and reads on, skipping nothing', async () => {
    const { topic, send, close } = await producerTo();
    const seen: string[] = [];
    const reader = new TopicReader({ kafka, logger, topic, apply: async (messages) => void seen.push(...messages.map(text)) });
    try {
      await reader.start();
      await send('a');
      await waitFor(() => seen.includes('a'), 'the first record', 10_000);
      broker.proxy.cut();
      await send('b');
      broker.proxy.cut();
      await send('c');
      await reader.caughtUp(15_000);
      expect(seen).toEqual(['a', 'b', 'c']);
    } finally {
      await reader.stop();
      await close();
    }
  });
});
