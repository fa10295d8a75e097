/**
 * Benchmark: the delivery log on PostgreSQL with BENCH_DELIVERIES deliveries (default 1,000,000,
 * three attempts each) in its store.
 *
 *   npm run bench:delivery-log      (starts a throwaway local stack and a PostgreSQL server)
 *
 * 1. Reading: a partner's filtered list (no filter, by status, by policy, a time window, the next
 *    page by cursor) and one delivery with its attempts, through the partner API over HTTP,
 *    BENCH_QUERIES times each (default 500, after 50 not counted), against the baseline of the
 *    same delivery read by primary key straight from PostgreSQL in this process. Goal: p99 ≤ 50 ms.
 * 2. Keeping up: BENCH_RATE deliveries a second (default 1,000: a callback request and its outcome
 *    each) published for BENCH_SECONDS (default 30); the projection's lag is how long after its
 *    record was acknowledged each outcome is in the store, sampled every 100 ms. Goal: under 2 s.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { TopicNames } from '@hookstream/kafka';
import { routeProcessWarnings } from '@hookstream/runtime';
import { PARTNERS, fillDeliveryLog } from './delivery-log/fill';
import { startBenchPostgres } from './delivery-log/postgres';
import { envNumber, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { ms, quantile, timed } from './support/samples';
import { ServiceProcess } from './support/service-process';

const deliveries = envNumber('BENCH_DELIVERIES', 1_000_000);
const queries = envNumber('BENCH_QUERIES', 500);
const rate = envNumber('BENCH_RATE', 1000);
const seconds = envNumber('BENCH_SECONDS', 30);

async function main(): Promise<void> {
  routeProcessWarnings((w) => console.error(w.message));
  const postgres = await startBenchPostgres();
  const stack = await prepareBenchStack(process.env, [TopicNames.callbackRequests, TopicNames.callbackOutcomes]);
  const { partnerId, apiKey } = await stack.onboard({
    partner_id: 'bench-log',
    name: 'bench-log',
    callback_endpoints: [{ endpoint_id: 'main', url: 'https://partner.example/callbacks' }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const service = await ServiceProcess.start('delivery-log', {
    ...process.env,
    TOPIC_PREFIX: stack.prefix,
    DELIVERY_LOG_DATABASE_URL: postgres.url,
    // The bench measures the replica, not the partner's rate limit: one partner may take all of it here.
    DELIVERY_LOG_PARTNER_REQUESTS_PER_SECOND: '100000',
  });
  const db = new Client({ connectionString: postgres.url });
  await db.connect();
  try {
    let started = performance.now();
    await fillDeliveryLog(db, deliveries, partnerId);
    console.log(
      `filled ${deliveries.toLocaleString('en')} deliveries and ${(deliveries * 3).toLocaleString('en')} attempts over ${PARTNERS} partners in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const ids = (
      await db.query<{ delivery_id: string; policy_number: string }>(
        'select delivery_id, policy_number from deliveries where partner_id = $1 order by random() limit $2',
        [partnerId, queries + 50],
      )
    ).rows;
    const headers = { 'x-api-key': apiKey };
    const api = async (path: string) => {
      const response = await fetch(`${service.url}/api/portal/v1${path}`, { headers });
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { next_cursor?: string | null };
    };
    const at = (i: number) => ids[i % ids.length]!;
    const hour = (i: number) => new Date(Date.now() - ((i % 200) + 1) * 3600_000).toISOString();
    const figures: Array<[string, number[]]> = [];
    figures.push([
      'baseline: one delivery by primary key (SQL, no HTTP)',
      await timed(queries, async (i) => void (await db.query('select * from deliveries where delivery_id = $1', [at(i).delivery_id]))),
    ]);
    figures.push([
      'one delivery with its attempts',
      await timed(queries, async (i) => void (await api(`/deliveries/${at(i).delivery_id}`))),
    ]);
    figures.push(['list, newest 50', await timed(queries, async () => void (await api('/deliveries?limit=50')))]);
    const states = ['dead_lettered', 'failing', 'delivered'];
    figures.push(['list by status', await timed(queries, async (i) => void (await api(`/deliveries?limit=50&status=${states[i % 3]}`)))]);
    figures.push([
      'list by policy',
      await timed(queries, async (i) => void (await api(`/deliveries?limit=50&policy_number=${at(i).policy_number}`))),
    ]);
    figures.push([
      'list in a time window',
      await timed(queries, async (i) => void (await api(`/deliveries?limit=50&from=${hour(i + 1)}&to=${hour(i)}`))),
    ]);
    const first = await api('/deliveries?limit=50&status=dead_lettered');
    figures.push([
      'next page by cursor',
      await timed(queries, async () => void (await api(`/deliveries?limit=50&status=dead_lettered&cursor=${first.next_cursor}`))),
    ]);
    const baseline = quantile(figures[0]![1], 0.99);
    console.log(`\nreading (${queries} each after 50 not counted; HTTP with keep-alive, one at a time):`);
    for (const [name, took] of figures) {
      const p99 = quantile(took, 0.99);
      const goal = name.startsWith('baseline')
        ? ''
        : `  ${(p99 / baseline).toFixed(1)}× baseline  ${p99 <= 50 ? 'meets' : 'MISSES'} p99 ≤ 50 ms`;
      console.log(`  ${name.padEnd(52)} p50 ${ms(quantile(took, 0.5)).padStart(9)}  p99 ${ms(p99).padStart(9)}${goal}`);
    }

    // 1b. What one replica serves at most: the figure the partner API's rate limit is a small share of.
    const capacity = await throughput(8, 5_000, () => api('/deliveries?limit=50'));
    console.log(
      `\ncapacity: 8 concurrent callers listing the newest 50 for 5 s: ${capacity.toFixed(0)} requests/s; ` +
        `a partner at the default rate limit (20/s) takes ${((20 / capacity) * 100).toFixed(1)} % of it`,
    );

    // 2. Keeping up with BENCH_RATE deliveries a second.
    const producer = stack.kafka.producer();
    await producer.connect();
    const acked: number[] = [];
    const total = rate * seconds;
    const lags: number[] = [];
    // Deliveries of the keep-up partner whose outcome is in the store (its index: a few thousand rows, not the million).
    const keptUp = async () =>
      Number(
        (await db.query<{ n: string }>("select count(*) as n from deliveries where partner_id = 'keep-up' and attempt_count > 0")).rows[0]!
          .n,
      );
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const done = await keptUp();
        // The outcomes are projected in about the order they were written: the newest in is about the done-th.
        if (done > 0 && acked[done - 1] !== undefined) lags.push(performance.now() - acked[done - 1]!);
      }
    })();
    started = performance.now();
    for (let second = 0; second < seconds; second++) {
      const batch = Array.from({ length: rate }, (_, j) => second * rate + j);
      const request = (n: number) => ({
        delivery_id: `keep-${n}`,
        event_id: randomUUID(),
        partner_id: 'keep-up',
        endpoint_id: 'main',
        policy_number: `KEEP-${n}`,
        policy_version: 1,
        policy_status: 'POLICY_ACTIVE',
        body: '{"policy_number":"KEEP"}',
        created_at: Date.now(),
      });
      // Ten sends a second, each a tenth of the second's deliveries.
      for (let tenth = 0; tenth < 10; tenth++) {
        const slice = batch.slice((tenth * rate) / 10, ((tenth + 1) * rate) / 10);
        const requests = await Promise.all(
          slice.map(async (n) => ({
            key: `KEEP-${n}`,
            value: await stack.codec.encode(stack.topic(TopicNames.callbackRequests), request(n)),
          })),
        );
        const outcomes = await Promise.all(
          slice.map(async (n) => ({
            key: `KEEP-${n}`,
            value: await stack.codec.encode(stack.topic(TopicNames.callbackOutcomes), {
              ...request(n),
              attempt: 1,
              outcome: 'DELIVERED',
              http_status: 200,
              error_class: null,
              latency_ms: 3,
              recorded_at: Date.now(),
              tier: 0,
            }),
          })),
        );
        await producer.send({ topic: stack.topic(TopicNames.callbackRequests), messages: requests });
        await producer.send({ topic: stack.topic(TopicNames.callbackOutcomes), messages: outcomes });
        const now = performance.now();
        for (const _ of slice) acked.push(now);
        const due = started + second * 1000 + (tenth + 1) * 100;
        if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
      }
    }
    const published = ((total / ((performance.now() - started) / 1000)) | 0).toLocaleString('en');
    const deadline = performance.now() + 60_000;
    for (;;) {
      if ((await keptUp()) >= total || performance.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    sampling = false;
    await sampler;
    await producer.disconnect();
    const p99 = quantile(lags, 0.99);
    console.log(
      `\nkeeping up: ${total.toLocaleString('en')} deliveries (a request and an outcome each) at ${published}/s over ${seconds} s`,
    );
    console.log(
      `  projection lag (acknowledged → in the store): p50 ${ms(quantile(lags, 0.5))}  p99 ${ms(p99)}  max ${ms(Math.max(...lags))}  ${p99 < 2000 ? 'meets' : 'MISSES'} lag < 2 s`,
    );
  } finally {
    await db.end();
    await service.stop();
    await postgres.stop();
  }
}

runBench(main, 30 * 60_000);

/** Requests a second that `callers` concurrent callers of `call` complete in `forMs`. */
async function throughput(callers: number, forMs: number, call: () => Promise<unknown>): Promise<number> {
  let done = 0;
  const until = performance.now() + forMs;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < until) {
        await call();
        done++;
      }
    }),
  );
  return done / (forMs / 1000);
}
