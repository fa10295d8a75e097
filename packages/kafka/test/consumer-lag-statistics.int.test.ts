import { randomUUID } from 'node:crypto';
import { KafkaConsumer } from '@confluentinc/kafka-javascript';
import { Registry } from 'prom-client';
import { createLogger } from '@hookstream/runtime';
import { ConsumerLagMonitor, consumerLagGauges } from '../src/consumer-lag';
import { createTopics, testInfrastructure, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';

/*
 * Whether librdkafka's statistics (`consumer_lag` per partition) could stand in for the consumer-lag
 * monitor (consumer-lag.ts): two members of one group on a topic of four partitions, each having
 * committed 3 of each of its partitions' 10 records. docs/architecture.md, "The Kafka runtime", gives
 * the figures this asserts.
 */
const kafka = testKafka();

interface PartitionStats {
  consumer_lag: number;
}
type Stats = { topics?: Record<string, { partitions: Record<string, PartitionStats> }> };

/** A native member of `groupId` with statistics every second; its last statistics are kept. */
function member(groupId: string): { consumer: KafkaConsumer; last: () => Stats | undefined } {
  let last: Stats | undefined;
  const consumer = new KafkaConsumer(
    {
      'bootstrap.servers': testInfrastructure().brokers.join(','),
      'group.id': groupId,
      'enable.auto.commit': false,
      'statistics.interval.ms': 1000,
    },
    { 'auto.offset.reset': 'earliest' },
  );
  consumer.on('event.stats', (event: { message: string }) => (last = JSON.parse(event.message) as Stats));
  return { consumer, last: () => last };
}

/** The partitions whose statistics give a lag (≥ 0), with it. */
function statisticsLag(stats: Stats | undefined, topic: string): Record<string, number> {
  const partitions = stats?.topics?.[topic]?.partitions ?? {};
  return Object.fromEntries(
    Object.entries(partitions).flatMap(([p, s]) => (p !== '-1' && s.consumer_lag >= 0 ? [[p, s.consumer_lag]] : [])),
  );
}

test('when two members share a group, then each one’s statistics give the lag of its own partitions only, in records; the monitor gives all, also once they left', async () => {
  const topic = uniqueName('lag-statistics');
  const groupId = `lag-statistics-${randomUUID()}`;
  await createTopics(kafka, [{ topic, partitions: 4 }]);
  const minuteAgo = Date.now() - 60_000;
  const producer = kafka.producer();
  await producer.connect();
  for (let partition = 0; partition < 4; partition++) {
    await producer.send({
      topic,
      messages: Array.from({ length: 10 }, (_, i) => ({ value: String(i), partition, timestamp: String(minuteAgo + i) })),
    });
  }
  await producer.disconnect();

  const members = [member(groupId), member(groupId)];
  let polling: NodeJS.Timeout[] = [];
  try {
    for (const { consumer } of members) {
      await new Promise<void>((resolve, reject) => consumer.connect({}, (error) => (error ? reject(error) : resolve())));
      consumer.subscribe([topic]);
      consumer.setDefaultConsumeTimeout(100);
    }
    // Consuming drives the rebalance and the statistics; the records taken are not committed.
    polling = members.map(({ consumer }) => setInterval(() => consumer.consume(1, () => undefined), 50));
    await waitFor(() => members.every(({ consumer }) => consumer.assignments().length === 2), 'each member to have two partitions', 30_000);
    for (const { consumer } of members) {
      consumer.commitSync(consumer.assignments().map(({ topic: t, partition }) => ({ topic: t, partition, offset: 3 })));
    }
    await waitFor(
      () =>
        members.every(
          ({ last }) =>
            Object.values(statisticsLag(last(), topic)).length === 2 &&
            Object.values(statisticsLag(last(), topic)).every((lag) => lag === 7),
        ),
      'statistics to give the committed lag',
      15_000,
    );
    const seen = members.map(({ last }) => statisticsLag(last(), topic));
    // Each member's statistics: two partitions of four, 7 records each; nothing of the records' age.
    expect(seen.map((s) => Object.keys(s).length)).toEqual([2, 2]);
    expect(Object.keys({ ...seen[0], ...seen[1] }).sort()).toEqual(['0', '1', '2', '3']);
  } finally {
    polling.forEach((timer) => clearInterval(timer));
    for (const { consumer } of members) await new Promise((resolve) => consumer.disconnect(resolve));
  }

  // Both left: no member, no statistics; the monitor still reports every partition.
  const gauges = consumerLagGauges(new Registry());
  const logger = createLogger({ service: 'test', level: 'silent' });
  const monitor = new ConsumerLagMonitor({ kafka, logger, groups: [{ groupId, topics: [topic] }], gauges, intervalMs: 60_000 });
  try {
    const reports = await monitor.measure();
    expect(reports.map((r) => [r.partition, r.records])).toEqual([
      [0, 7],
      [1, 7],
      [2, 7],
      [3, 7],
    ]);
    // And the age of the oldest record not consumed (the fourth of each partition): a minute.
    expect(reports.every((r) => r.seconds >= 60)).toBe(true);
  } finally {
    await monitor.stop();
  }
});
