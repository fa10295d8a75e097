import { randomUUID } from 'node:crypto';
import { TopicReader, createKafkaClient, type Kafka, type KafkaMessage } from '@hookstream/kafka';
import { createLogger, sleep } from '@hookstream/runtime';
import { describeError } from '@hookstream/errors';

/** The broker and registry of this test run, from the environment `npm test` sets. */
export function testInfrastructure(): { brokers: string[]; registryUrl: string } {
  const brokers = process.env.KAFKA_BROKERS;
  const registryUrl = process.env.SCHEMA_REGISTRY_URL;
  if (!brokers || !registryUrl) {
    throw new Error('integration tests need KAFKA_BROKERS and SCHEMA_REGISTRY_URL: run them with `npm test`, which starts a local stack');
  }
  return { brokers: brokers.split(','), registryUrl: registryUrl.replace(/\/+$/, '') };
}

/** A name no other test uses: for topics, groups, prefixes. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** A Kafka client for tests, logging errors only. */
export function testKafka(clientId = uniqueName('test')): Kafka {
  return createKafkaClient({
    brokers: testInfrastructure().brokers,
    clientId,
    logger: createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
  });
}

/** Every committed record of `topic` (read_committed), read to its end as it is now. */
export async function readTopicToEnd(topic: string, kafka: Kafka = testKafka()): Promise<KafkaMessage[]> {
  const messages: KafkaMessage[] = [];
  const reader = new TopicReader({
    kafka,
    logger: createLogger({ service: 'test', level: 'silent' }),
    topic,
    apply: async (batch) => void messages.push(...batch),
  });
  await reader.start();
  await reader.stop();
  return messages;
}

/** Creates topics for one test and returns their names. */
export async function createTopics(
  kafka: Kafka,
  topics: Array<{ topic: string; partitions?: number; config?: Record<string, string> }>,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    // Resolves once every partition has a leader.
    await admin.createTopics({
      topics: topics.map((t) => ({
        topic: t.topic,
        numPartitions: t.partitions ?? 1,
        replicationFactor: 1,
        configEntries: Object.entries(t.config ?? {}).map(([name, value]) => ({ name, value })),
      })),
    });
  } finally {
    await admin.disconnect();
  }
}

/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${describeError(lastError)}` : ''}`);
}
