import { TopicReader } from '../src/topic-reader';
import { sleep } from '@hookstream/runtime';
import { createLogger } from '@hookstream/runtime';
import { type KafkaMessage } from '../src/client';
import { createTopics, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';

/** The group-less whole-topic reader against a real broker. */
const kafka = testKafka();
const logger = createLogger({ service: 'test', level: 'silent' });

async function produce(topic: string, values: string[], timestamp?: number): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({
      topic,
      messages: values.map((value) => ({ key: value, value, ...(timestamp ? { timestamp: String(timestamp) } : {}) })),
    });
  } finally {
    await producer.disconnect();
  }
}

function collecting(topic: string, extra: Partial<ConstructorParameters<typeof TopicReader>[0]> = {}) {
  const seen: string[] = [];
  const reader = new TopicReader({
    kafka,
    logger,
    topic,
    apply: (messages: KafkaMessage[]) => {
      for (const m of messages) seen.push(m.value!.toString());
      return Promise.resolve();
    },
    ...extra,
  });
  return { reader, seen };
}

test('when started, then it has applied every record written before, across partitions, and goes on with new ones', async () => {
  const topic = uniqueName('reader');
  await createTopics(kafka, [{ topic, partitions: 3 }]);
  const before = Array.from({ length: 300 }, (_, i) => `before-${i}`);
  await produce(topic, before);
  const { reader, seen } = collecting(topic);
  try {
    await reader.start();
    expect(new Set(seen)).toEqual(new Set(before));
    expect(reader.partitionCount).toBe(3);
    expect(reader.isCurrent(2000)).toBe(true);
    const after = Array.from({ length: 50 }, (_, i) => `after-${i}`);
    await produce(topic, after);
    await reader.caughtUp(10_000);
    expect(seen).toHaveLength(350);
    expect(seen.filter((v) => v.startsWith('after-')).sort()).toEqual([...after].sort());
  } finally {
    await reader.stop();
  }
  expect(reader.isCurrent(2000)).toBe(false);
});

test('when records were written in transactions, then only committed ones are applied, and the markers are stepped over', async () => {
  const topic = uniqueName('reader-tx');
  await createTopics(kafka, [{ topic }]);
  const producer = kafka.producer({ transactionalId: uniqueName('tx') });
  await producer.connect();
  const { reader, seen } = collecting(topic);
  try {
    for (const [value, commit] of [
      ['committed-1', true],
      ['aborted', false],
      ['committed-2', true],
    ] as const) {
      const tx = await producer.transaction();
      await tx.send({ topic, messages: [{ key: value, value }] });
      await (commit ? tx.commit() : tx.abort());
    }
    await reader.start();
    expect(seen).toEqual(['committed-1', 'committed-2']);
    const tx = await producer.transaction();
    await tx.send({ topic, messages: [{ key: 'later', value: 'later' }] });
    await sleep(300);
    expect(seen).not.toContain('later'); // not before its commit
    await tx.commit();
    await waitFor(() => seen.includes('later'), 'the committed record');
    expect(seen).toEqual(['committed-1', 'committed-2', 'later']);
  } finally {
    await reader.stop();
    await producer.disconnect();
  }
});

test('when it starts from a time, then records older than that are not applied', async () => {
  const topic = uniqueName('reader-time');
  await createTopics(kafka, [{ topic }]);
  const now = Date.now();
  await produce(topic, ['old'], now - 3_600_000);
  await produce(topic, ['recent'], now - 1_000);
  const { reader, seen } = collecting(topic, { fromTimestamp: now - 60_000 });
  try {
    await reader.start();
    expect(seen).toEqual(['recent']);
  } finally {
    await reader.stop();
  }
});

test('when applying fails, then the same records are applied again and nothing is skipped', async () => {
  const topic = uniqueName('reader-retry');
  await createTopics(kafka, [{ topic }]);
  await produce(topic, ['a', 'b']);
  const seen: string[] = [];
  let failures = 1;
  const reader = new TopicReader({
    kafka,
    logger,
    topic,
    apply: (messages) => {
      if (failures-- > 0) return Promise.reject(new Error('not now'));
      for (const m of messages) seen.push(m.value!.toString());
      return Promise.resolve();
    },
  });
  try {
    await reader.start();
    expect(seen).toEqual(['a', 'b']);
  } finally {
    await reader.stop();
  }
});
