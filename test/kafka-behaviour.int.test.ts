/**
 * The Kafka client (librdkafka, through Hookstream's Kafka) against the pinned broker (Kafka 4.3.1
 * from the local stack): the behaviour every Hookstream service relies on, proven on a real broker.
 */
import { RecordWriter, type Consumer, type Kafka } from '@hookstream/kafka';
import { sleep } from '@hookstream/runtime';
import { createTopics, testKafka, uniqueName, waitFor } from './helpers/infrastructure';

describe('the Kafka client against the pinned broker', () => {
  let kafka: Kafka;
  const consumers: Consumer[] = [];

  beforeAll(() => {
    kafka = testKafka();
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.disconnect()));
  });

  async function consumeAll(
    topic: string,
    groupId: string,
    expected: number,
    options: { isolation?: 'read_committed' | 'read_uncommitted' } = {},
  ) {
    const received: Array<{ key: string; value: string; partition: number; offset: string }> = [];
    const consumer = kafka.consumer({ groupId, readUncommitted: options.isolation === 'read_uncommitted', fromBeginning: true });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        received.push({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? '', partition, offset: message.offset });
      },
    });
    await waitFor(() => received.length >= expected, `${expected} records on ${topic}`);
    return received;
  }

  test('when records are produced idempotently with acks=all, then a consumer group reads every one, in order per key', async () => {
    const topic = uniqueName('produce-consume');
    await createTopics(kafka, [{ topic, partitions: 3 }]);
    const producer = kafka.producer();
    await producer.connect();
    const messages = Array.from({ length: 30 }, (_, i) => ({ key: `policy-${i % 5}`, value: String(i) }));
    await producer.send({ topic, messages });
    await producer.disconnect();

    const received = await consumeAll(topic, uniqueName('group'), 30);

    expect(received).toHaveLength(30);
    for (let k = 0; k < 5; k++) {
      const forKey = received.filter((r) => r.key === `policy-${k}`);
      expect(forKey.map((r) => Number(r.value))).toEqual([k, k + 5, k + 10, k + 15, k + 20, k + 25]);
      expect(new Set(forKey.map((r) => r.partition)).size).toBe(1);
    }
  });

  test('when a transaction sends records and the consumed offsets, then both commit together, and an aborted one is invisible', async () => {
    const input = uniqueName('tx-in');
    const output = uniqueName('tx-out');
    await createTopics(kafka, [{ topic: input }, { topic: output }]);
    const seed = kafka.producer();
    await seed.connect();
    await seed.send({
      topic: input,
      messages: [
        { key: 'a', value: 'one' },
        { key: 'b', value: 'two' },
      ],
    });
    await seed.disconnect();

    const groupId = uniqueName('tx-group');
    // The offsets go with the group's member that read the input (its generation, KIP-447).
    let assigned: () => void = () => undefined;
    const joined = new Promise<void>((resolve) => (assigned = resolve));
    const member = kafka.consumer({
      groupId,
      fromBeginning: true,
      onRebalance: (event) => (event === 'assigned' ? assigned() : undefined),
    });
    consumers.push(member);
    await member.connect();
    await member.subscribe({ topics: [input] });
    await member.run({ eachBatch: () => Promise.resolve() });
    await joined;
    const producer = kafka.producer({ transactionalId: uniqueName('tx') });
    await producer.connect();

    const aborted = await producer.transaction();
    await aborted.send({ topic: output, messages: [{ key: 'x', value: 'never visible' }] });
    await aborted.abort();

    const tx = await producer.transaction();
    await tx.send({
      topic: output,
      messages: [
        { key: 'a', value: 'ONE' },
        { key: 'b', value: 'TWO' },
      ],
    });
    await tx.sendOffsets({ consumer: member, topics: [{ topic: input, partitions: [{ partition: 0, offset: '2' }] }] });
    await tx.commit();
    await producer.disconnect();

    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchOffsets({ groupId, topics: [input] });
    await admin.disconnect();
    expect(offsets[0]?.partitions[0]?.offset).toBe('2');

    const received = await consumeAll(output, uniqueName('reader'), 2, { isolation: 'read_committed' });
    await sleep(500); // would an aborted record show up late?
    expect(received.map((r) => r.value)).toEqual(['ONE', 'TWO']);
  });

  test('when a compacted topic is cleaned, then only the newest value of each key remains', async () => {
    const topic = uniqueName('compacted');
    await createTopics(kafka, [
      {
        topic,
        config: {
          'cleanup.policy': 'compact',
          'segment.ms': '100',
          'min.cleanable.dirty.ratio': '0.01',
          'min.compaction.lag.ms': '0',
          'delete.retention.ms': '100',
        },
      },
    ]);
    const producer = kafka.producer();
    await producer.connect();
    for (let round = 0; round < 5; round++) {
      await producer.send({
        topic,
        messages: [
          { key: 'partner-a', value: `a${round}` },
          { key: 'partner-b', value: `b${round}` },
        ],
      });
      await sleep(150); // roll segments so the cleaner can compact the older ones
    }
    await producer.send({ topic, messages: [{ key: 'partner-b', value: null }] }); // tombstone
    await sleep(150);
    await producer.send({ topic, messages: [{ key: 'roller', value: 'forces the last segment to roll' }] });

    // The log cleaner runs in the background: read from the start until compaction shows.
    const snapshot = await waitFor(
      async () => {
        const seen: Array<{ key: string; value: string | null }> = [];
        const consumer = kafka.consumer({ groupId: uniqueName('compaction-reader'), fromBeginning: true });
        await consumer.connect();
        await consumer.subscribe({ topics: [topic] });
        const admin = kafka.admin();
        await admin.connect();
        const end = Number((await admin.fetchTopicOffsets(topic))[0]?.high);
        await admin.disconnect();
        let last = -1;
        await consumer.run({
          eachMessage: async ({ message }) => {
            seen.push({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? null });
            last = Number(message.offset);
          },
        });
        await waitFor(() => last >= end - 1, 'reading to the end', 10_000);
        await consumer.disconnect();
        const compacted =
          seen.filter((r) => r.key === 'partner-a').length === 1 && !seen.some((r) => r.key === 'partner-b' && r.value !== null);
        return compacted ? seen : undefined;
      },
      'the log cleaner to compact',
      60_000,
    );
    expect(snapshot.filter((r) => r.key === 'partner-a')).toEqual([{ key: 'partner-a', value: 'a4' }]);
    expect(snapshot.filter((r) => r.key === 'partner-b' && r.value !== null)).toEqual([]);
    await producer.disconnect();
  }, 90_000);

  test('when one partition is paused, then the others keep flowing, and after resume its records arrive', async () => {
    const topic = uniqueName('pause');
    await createTopics(kafka, [{ topic, partitions: 2 }]);
    let assigned: () => void = () => undefined;
    const joined = new Promise<void>((resolve) => (assigned = resolve));
    const consumer = kafka.consumer({
      groupId: uniqueName('pause-group'),
      fromBeginning: true,
      onRebalance: (event) => (event === 'assigned' ? assigned() : undefined),
    });
    consumers.push(consumer);
    const received: Array<{ partition: number; value: string }> = [];
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        received.push({ partition, value: message.value?.toString() ?? '' });
      },
    });
    await joined;
    consumer.pause([{ topic, partitions: [1] }]);

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [0, 1, 0, 1].map((partition, i) => ({ partition, value: `p${partition}-${i}` })) });

    await waitFor(() => received.filter((r) => r.partition === 0).length === 2, 'partition 0 records');
    await sleep(1500); // long enough for several fetches
    expect(received.filter((r) => r.partition === 1)).toEqual([]);
    expect(consumer.paused()).toEqual([{ topic, partitions: [1] }]);

    consumer.resume([{ topic, partitions: [1] }]);
    await waitFor(() => received.filter((r) => r.partition === 1).length === 2, 'partition 1 records after resume');
    expect(received.filter((r) => r.partition === 1).map((r) => r.value)).toEqual(['p1-1', 'p1-3']);
    await producer.disconnect();
  });

  test('when 16 callers send concurrently through the RecordWriter, then every record arrives, each at its own offset', async () => {
    const topic = uniqueName('batching');
    await createTopics(kafka, [{ topic, partitions: 3 }]);
    const producer = kafka.producer();
    await producer.connect();
    const writer = new RecordWriter(producer);

    const total = 800;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < total) {
          const i = next++;
          const metadata = await writer.send({ topic, key: `k${i}`, value: Buffer.from(String(i)) });
          expect(metadata.every((m) => m.topicName === topic)).toBe(true);
        }
      }),
    );
    await producer.disconnect();

    const received = await consumeAll(topic, uniqueName('batch-reader'), total);
    expect(new Set(received.map((r) => r.value)).size).toBe(total);
  });
});
