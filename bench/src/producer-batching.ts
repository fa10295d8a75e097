/**
 * Benchmark: whether a batching layer of ours would still help. The RecordWriter of @hookstream/kafka (one
 * `send()` per record, as the services write; librdkafka gathers concurrent records by itself within
 * its linger) against the same records sent by us in batches of 500 (`sendBatch`), same
 * concurrency, same broker, in one run.
 *
 *   npm run bench                                   (starts a throwaway local stack)
 *   KAFKA_BROKERS=… node bench/dist/producer-batching.js
 *
 * Env: BENCH_RECORDS (default 3000), BENCH_CONCURRENCY (default 16).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { RecordWriter, createKafkaClient } from '@hookstream/kafka';
import { createLogger, routeProcessWarnings } from '@hookstream/runtime';
import { envNumber } from './support/bench-run';

const records = envNumber('BENCH_RECORDS', 3000);
const concurrency = envNumber('BENCH_CONCURRENCY', 16);
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function run(label: string, sendOne: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < records) {
        const i = next++;
        const t0 = performance.now();
        await sendOne(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const rate = records / seconds;
  console.log(
    `${label.padEnd(34)} ${rate.toFixed(0).padStart(7)} records/s   p50 ${percentile(latencies, 50).toFixed(1)} ms   p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
  return rate;
}

async function main() {
  routeProcessWarnings((warning) => console.error(warning.message));
  const kafka = createKafkaClient({ brokers, clientId: 'bench', logger: createLogger({ service: 'bench', level: 'error' }) });
  const admin = kafka.admin();
  await admin.connect();
  const topic = `bench-producer-${randomUUID()}`;
  await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 1 }] });
  await admin.disconnect();

  const producer = kafka.producer();
  await producer.connect();
  const value = Buffer.alloc(300, 'x');
  console.log(`${records} records of ${value.length} B, ${concurrency} concurrent callers, idempotent producer, acks=all`);

  // Warm-up: metadata, connections, producer id.
  await producer.send({ topic, messages: [{ key: 'warm', value }] });

  const writer = new RecordWriter(producer);
  const perRecord = await run('RecordWriter: one send() per record', (i) => writer.send({ topic, key: `k${i}`, value }));
  const started = performance.now();
  for (let from = 0; from < records; from += 500) {
    const messages = Array.from({ length: Math.min(500, records - from) }, (_, i) => ({ key: `b${from + i}`, value }));
    await producer.sendBatch({ topicMessages: [{ topic, messages }] });
  }
  const batched = records / ((performance.now() - started) / 1000);
  console.log(`${'baseline: sendBatch() of 500'.padEnd(34)} ${batched.toFixed(0).padStart(7)} records/s`);
  console.log(`ratio: one send() per record reaches ${((perRecord / batched) * 100).toFixed(0)} % of the batched rate`);
  await producer.disconnect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
