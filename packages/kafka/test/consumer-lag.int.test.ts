import { randomUUID } from 'node:crypto';
import type { Message } from '../src/types';
import { Registry } from 'prom-client';
import { ConsumerLagMonitor, consumerLagGauges, type ConsumerLagGauges } from '../src/consumer-lag';
import { PartitionProbe } from '../src/partition-probe';
import { createLogger } from '@hookstream/runtime';
import { createTopics, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';

/** Consumer lag measured against a real broker: a plain topic, and a transactional one with markers and an aborted transaction. */
const kafka = testKafka();
const logger = createLogger({ service: 'test', level: 'silent' });

async function produce(topic: string, partition: number, messages: Message[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic, messages: messages.map((m) => ({ ...m, partition })) });
  } finally {
    await producer.disconnect();
  }
}

/** Writes each group of values in a transaction of its own, committed or aborted. */
async function produceInTransactions(topic: string, transactions: Array<{ values: string[]; abort?: boolean }>): Promise<void> {
  const producer = kafka.producer({ transactionalId: uniqueName('lag-test') });
  await producer.connect();
  try {
    for (const { values, abort } of transactions) {
      const tx = await producer.transaction();
      await tx.send({ topic, messages: values.map((value) => ({ value, partition: 0 })) });
      await (abort ? tx.abort() : tx.commit());
    }
  } finally {
    await producer.disconnect();
  }
}

/** A real group member (read_committed) that consumes and commits the first `count` records of each partition, then leaves. */
async function consumeWithGroup(groupId: string, topic: string, count: Map<number, number>): Promise<void> {
  const consumer = kafka.consumer({ groupId, readUncommitted: false, maxWaitMs: 100, fromBeginning: true });
  const consumed = new Map<number, number>();
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        if ((consumed.get(partition) ?? 0) >= (count.get(partition) ?? 0)) return;
        await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
        consumed.set(partition, (consumed.get(partition) ?? 0) + 1);
      },
    });
    await waitFor(() => [...count].every(([p, n]) => (consumed.get(p) ?? 0) >= n), `the group to consume ${topic}`);
  } finally {
    await consumer.disconnect();
  }
}

function monitorOf(groupId: string, topic: string, intervalMs = 60_000): { monitor: ConsumerLagMonitor; gauges: ConsumerLagGauges } {
  const gauges = consumerLagGauges(new Registry());
  return { monitor: new ConsumerLagMonitor({ kafka, logger, groups: [{ groupId, topics: [topic] }], gauges, intervalMs }), gauges };
}

/** The gauge's value for one partition of `topic`. */
async function gaugeValue(gauge: ConsumerLagGauges['lagRecords'], topic: string, partition: number): Promise<number | undefined> {
  const { values } = await gauge.get();
  return values.find((v) => v.labels.topic === topic && v.labels.partition === String(partition))?.value;
}

test('when a group consumed part of a topic, then the lag is the records left and the age of the oldest of them, and grows while nobody consumes', async () => {
  const topic = uniqueName('lag-plain');
  const groupId = `lag-${randomUUID()}`;
  await createTopics(kafka, [{ topic, partitions: 2 }]);
  const oldest = Date.now() - 60_000;
  // Partition 0: ten records a second apart, the first a minute old; partition 1: three.
  await produce(
    topic,
    0,
    Array.from({ length: 10 }, (_, i) => ({ value: `p0-${i}`, timestamp: String(oldest + i * 1000) })),
  );
  await produce(
    topic,
    1,
    Array.from({ length: 3 }, (_, i) => ({ value: `p1-${i}` })),
  );
  await consumeWithGroup(
    groupId,
    topic,
    new Map([
      [0, 4],
      [1, 3],
    ]),
  );

  const { monitor, gauges } = monitorOf(groupId, topic, 200);
  try {
    await monitor.start();
    const [p0, p1] = await Promise.all(
      [0, 1].map(async (p) => ({
        records: await gaugeValue(gauges.lagRecords, topic, p),
        seconds: await gaugeValue(gauges.lagSeconds, topic, p),
      })),
    );
    expect(p0!.records).toBe(6);
    // The oldest record not consumed is the fifth: written 56 s before now (a few more on a slow machine).
    expect(p0!.seconds).toBeGreaterThanOrEqual(55);
    expect(p0!.seconds).toBeLessThan(90);
    expect(p1).toEqual({ records: 0, seconds: 0 });

    // Nobody consumes: on the next measurements partition 1 shows the new records too.
    await produce(topic, 1, [{ value: 'late-1' }, { value: 'late-2' }]);
    await waitFor(async () => (await gaugeValue(gauges.lagRecords, topic, 1)) === 2, 'the new records to show as lag');
    expect(await gaugeValue(gauges.lagSeconds, topic, 1)).toBeLessThan(30);
  } finally {
    await monitor.stop();
  }
});

test('when a group has read a transactional topic to its end (commit markers, an aborted transaction), then its lag is 0, not the markers', async () => {
  const topic = uniqueName('lag-tx');
  const groupId = `lag-${randomUUID()}`;
  await createTopics(kafka, [{ topic, partitions: 1 }]);
  // Offsets 0-2 records, 3 commit marker, 4-5 aborted records, 6 abort marker: the last stable offset is 7.
  await produceInTransactions(topic, [{ values: ['a', 'b', 'c'] }, { values: ['x', 'y'], abort: true }]);
  await consumeWithGroup(groupId, topic, new Map([[0, 3]]));
  const probe = new PartitionProbe(kafka);
  const committed = await (async () => {
    const admin = kafka.admin();
    await admin.connect();
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    await admin.disconnect();
    return offsets!.partitions[0]!.offset;
  })();
  // The premise: the group stands 4 offsets before the end, none of them a record it could read.
  expect({ committed, bounds: await probe.bounds(topic) }).toEqual({ committed: '3', bounds: [{ partition: 0, low: 0n, end: 7n }] });
  await probe.disconnect();

  const { monitor, gauges } = monitorOf(groupId, topic);
  try {
    const [lag] = await monitor.measure();
    expect(lag).toEqual({ groupId, topic, partition: 0, records: 0, seconds: 0 });

    // One more committed record (offset 7, its marker 8): the group is behind by it, found past the markers and aborted records.
    await produceInTransactions(topic, [{ values: ['d'] }]);
    const [behind] = await monitor.measure();
    // Offsets are counted from the record to the end: the record and its transaction's marker.
    expect(behind!.records).toBe(2);
    expect(behind!.seconds).toBeLessThan(30);

    await monitor.start();
    expect(await gaugeValue(gauges.lagRecords, topic, 0)).toBe(2);
  } finally {
    await monitor.stop();
  }
});

test('when the group has committed nothing yet, then the lag covers the whole partition from its first record', async () => {
  const topic = uniqueName('lag-new');
  await createTopics(kafka, [{ topic, partitions: 1 }]);
  await produce(topic, 0, [{ value: 'one' }, { value: 'two' }, { value: 'three' }]);
  const { monitor } = monitorOf(`lag-${randomUUID()}`, topic);
  try {
    const [lag] = await monitor.measure();
    expect(lag!.records).toBe(3);
  } finally {
    await monitor.stop();
  }
});
