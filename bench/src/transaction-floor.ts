/**
 * Benchmark: the fan-out's transaction, step by step, and its floor. One record and one offset per
 * transaction (as the policy-status-consumer's member commits an event at 20 events/s), written
 * one after another with a pause between, by each way of writing it, interleaved over rounds:
 *
 * - "ack, then offsets, linger 5 ms": the record written and its acknowledgement awaited, then the
 *   offsets, then the commit, with librdkafka's default linger: how the members wrote until
 *   2026-11-29;
 * - "ack, then offsets, linger 0": the same, the record sent at once: how they write now
 *   (member-transactions.ts);
 * - "offsets beside the write, linger 0": the offsets sent while the record is in flight, both
 *   awaited before the commit (tried: faster alone, but it raised the fan-out's p99 at 200 events/s);
 * - floor "no offsets": a transaction of the record alone (linger 0);
 * - floor "one write": an idempotent acks=all write, no transaction: one Kafka round trip.
 *
 * A read_committed reader in the same process notes when each record becomes readable. Prints per
 * way and round the p50/p99 of each step (begin; write acknowledged; offsets; commit), of the whole
 * transaction, and from its start to the record readable.
 *
 *   npm run bench:transaction      (starts a throwaway local stack around it)
 *
 * Env: BENCH_TRANSACTIONS (per way and round, default 300), BENCH_PAUSE_MS (between two, default
 * 50: 20/s), BENCH_ROUNDS (default 2).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKafkaClient, type Kafka } from '@hookstream/kafka';
import { createLogger, routeProcessWarnings } from '@hookstream/runtime';
import { markdownTable } from './support/markdown-table';
import { envNumber, runBench } from './support/bench-run';
import { quantile } from './support/samples';

const count = envNumber('BENCH_TRANSACTIONS', 300);
const pauseMs = envNumber('BENCH_PAUSE_MS', 50, 0);
const rounds = envNumber('BENCH_ROUNDS', 2);

type Steps = { begin: number; written: number; offsets: number; commit: number; total: number; readable: number };
type Way = { name: string; transactional: boolean; lingerMs?: number; offsets: 'after-ack' | 'beside' | 'none' };
const WAYS: Way[] = [
  { name: 'ack, then offsets, linger 5 ms (before)', transactional: true, offsets: 'after-ack' },
  { name: 'ack, then offsets, linger 0 (now)', transactional: true, lingerMs: 0, offsets: 'after-ack' },
  { name: 'offsets beside the write, linger 0 (tried)', transactional: true, lingerMs: 0, offsets: 'beside' },
  { name: 'floor: no offsets', transactional: true, lingerMs: 0, offsets: 'none' },
  { name: 'floor: one write, no transaction', transactional: false, lingerMs: 0, offsets: 'none' },
];

/** When each key became readable to a read_committed reader. */
class ReadableTimes {
  private readonly seen = new Map<string, number>();
  private readonly waiters = new Map<string, (at: number) => void>();

  note(key: string, at: number): void {
    const waiter = this.waiters.get(key);
    if (waiter) waiter(at);
    else this.seen.set(key, at);
  }

  when(key: string): Promise<number> {
    const at = this.seen.get(key);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => this.waiters.set(key, resolve));
  }
}

async function topics(kafka: Kafka): Promise<{ input: string; output: string }> {
  const prefix = `bench-txn-${Date.now()}`;
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [`${prefix}-in`, `${prefix}-out`].map((topic) => ({ topic, numPartitions: 1 })) });
  await admin.disconnect();
  return { input: `${prefix}-in`, output: `${prefix}-out` };
}

/** A joined group member: its group metadata is what a transaction's offsets carry (KIP-447). */
async function joinedMember(kafka: Kafka, topic: string, groupId: string, onRecords?: (keys: string[]) => void) {
  let joined!: () => void;
  const assigned = new Promise<void>((resolve) => (joined = resolve));
  const member = kafka.consumer({
    groupId,
    maxWaitMs: 100,
    onRebalance: (event) => {
      if (event === 'assigned') joined();
    },
  });
  await member.connect();
  await member.subscribe({ topics: [topic] });
  await member.run({
    eachBatch: ({ batch }) => {
      onRecords?.(batch.messages.map((m) => m.key?.toString('utf8') ?? ''));
      return Promise.resolve();
    },
  });
  await assigned;
  return member;
}

async function measureWay(kafka: Kafka, way: Way, input: string, output: string, readable: ReadableTimes): Promise<Steps[]> {
  const member = await joinedMember(kafka, input, `bench-txn-member-${randomUUID()}`);
  const producer = kafka.producer({
    ...(way.transactional ? { transactionalId: `bench-txn-${randomUUID()}`, transactionTimeoutMs: 10_000, deliveryTimeoutMs: 10_000 } : {}),
    ...(way.lingerMs === undefined ? {} : { lingerMs: way.lingerMs }),
  });
  await producer.connect();
  const steps: Steps[] = [];
  try {
    for (let i = -20; i < count; i++) {
      const key = randomUUID();
      const record = { topic: output, messages: [{ key, value: Buffer.alloc(600, 1) }] };
      const offsets = [{ topic: input, partitions: [{ partition: 0, offset: String(i + 100) }] }];
      const t0 = performance.now();
      let begin = t0;
      let written = t0;
      let offsetsAt = t0;
      if (!way.transactional) {
        await producer.send(record);
        written = offsetsAt = performance.now();
      } else {
        const transaction = await producer.transaction();
        begin = performance.now();
        const write = transaction.send(record).then(() => (written = performance.now()));
        if (way.offsets === 'after-ack') await write;
        const sent = way.offsets === 'none' ? Promise.resolve() : transaction.sendOffsets({ consumer: member, topics: offsets });
        await Promise.all([write, sent]);
        offsetsAt = performance.now();
        await transaction.commit();
      }
      const end = performance.now();
      const readAt = await readable.when(key);
      if (i >= 0)
        steps.push({
          begin: begin - t0,
          written: written - begin,
          offsets: offsetsAt - written,
          commit: end - offsetsAt,
          total: end - t0,
          readable: readAt - t0,
        });
      await sleep(pauseMs);
    }
  } finally {
    await producer.disconnect();
    await member.disconnect();
  }
  return steps;
}

const figure = (values: number[]) => `${quantile(values, 0.5).toFixed(2)} / ${quantile(values, 0.99).toFixed(2)}`;

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const logger = createLogger({ service: 'bench', level: 'error' });
  const kafka = createKafkaClient({ brokers: (process.env.KAFKA_BROKERS ?? '').split(','), clientId: 'bench-txn', logger });
  const { input, output } = await topics(kafka);
  const readable = new ReadableTimes();
  const reader = await joinedMember(kafka, output, `bench-txn-reader-${randomUUID()}`, (keys) => {
    const at = performance.now();
    for (const key of keys) readable.note(key, at);
  });
  console.log(
    `transaction floor: ${count} transactions of one 600-byte record and one offset per way and round, ${pauseMs} ms apart, ` +
      `${rounds} rounds; figures p50 / p99 in ms (the "written" step ends at the record's acknowledgement)`,
  );
  const rows: string[][] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const way of WAYS) {
        const steps = await measureWay(kafka, way, input, output, readable);
        const column = (name: keyof Steps) => figure(steps.map((s) => s[name]));
        const row = [
          way.name,
          String(round),
          column('begin'),
          column('written'),
          column('offsets'),
          column('commit'),
          column('total'),
          column('readable'),
        ];
        console.log(row.join(' | '));
        rows.push(row);
      }
    }
  } finally {
    await reader.disconnect();
  }
  console.log(
    '\n' +
      markdownTable(
        ['way', 'round', 'begin', 'written (acknowledged)', 'then offsets', 'then commit', 'transaction', 'start → readable'],
        rows,
      ),
  );
}

runBench(main, 20 * 60_000);
