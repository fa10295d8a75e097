/**
 * Benchmark: what a replica's memory and restart cost as the state grows. The services whose
 * state once lived in every replica's heap (the ingress's request_ids, the callback-sender's
 * latest policy versions, the document-fetcher's recorded documents) keep it in PostgreSQL now;
 * this fills that state with N entries straight into the store and shows, per service, at two
 * values of N and with one and two replicas: each replica's heap and RSS once ready and after a
 * short load, and the time from a kill -9 of one replica to its successor being ready.
 *
 *   npm run bench:scale      (starts a throwaway local stack around it, PostgreSQL included)
 *
 * Env: BENCH_SCALE_KEYS (the two values of N, default 10000,1000000), BENCH_SCALE_WEBHOOKS (the
 * load sent to the ingress after each start, default 2000). DATABASE_URL comes from the stack.
 * Goal: memory flat in N (bounded by configuration, not by history) and restart to ready ≤ 10 s
 * at every N; the last table extrapolates the heap each replica would hold at 1,000/s for 24 h
 * from the heap's slope in N (about zero when nothing grows with history).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { routeProcessWarnings } from '@hookstream/runtime';
import { envNumber, envNumberList, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { markdownTable } from './support/markdown-table';
import { ServiceProcess } from './support/service-process';
import { fillState, STATEFUL_SERVICES, type StatefulService } from './scale/fill-state';
import { memoryOf, type Memory } from './scale/memory';

const keyCounts = envNumberList('BENCH_SCALE_KEYS', [10_000, 1_000_000]);
const webhooks = envNumber('BENCH_SCALE_WEBHOOKS', 2_000);
const DAY_AT_1000_PER_S = 1_000 * 86_400;

interface Row {
  service: StatefulService;
  keys: number;
  replicas: number;
  ready: Memory;
  loaded: Memory;
  restartMs: number;
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('DATABASE_URL is not set: run this through `npm run bench:scale`, whose stack provides PostgreSQL');
  const stack = await prepareBenchStack(process.env, []);
  const partner = await stack.onboard({ partner_id: 'scale', name: 'Scale' });
  console.log(`N = ${keyCounts.join(', ')}; ${webhooks} webhooks of load after each ingress start; Node ${process.versions.node}`);
  const rows: Row[] = [];
  for (const service of STATEFUL_SERVICES) {
    for (const keys of keyCounts) {
      const database = await freshDatabase(serverUrl, `scale_${service.replace(/-/g, '_')}_${keys}`);
      const env = { ...process.env, TOPIC_PREFIX: stack.prefix, DATABASE_URL: database, SSRF_ALLOW: '127.0.0.0/8' };
      // The service creates its tables; then the state is filled under them, as history would have.
      const first = await ServiceProcess.start(service, { ...env, KAFKA_GROUP_INSTANCE_ID: `${service}-1` });
      const filledIn = await timed(() => fillState(service, database, keys, 'scale', stack.prefix));
      await first.stop();
      console.log(`${service}: ${keys.toLocaleString('en')} entries written to its store in ${filledIn} ms`);
      for (const replicas of [1, 2]) {
        rows.push(await measure(service, keys, replicas, env, partner.apiKey));
      }
    }
  }
  print(rows);
}

/** Starts `replicas` replicas, reads their memory, loads them, reads it again, then kills one and times its successor. */
async function measure(service: StatefulService, keys: number, replicas: number, env: NodeJS.ProcessEnv, apiKey: string): Promise<Row> {
  const envOf = (n: number) => ({ ...env, KAFKA_GROUP_INSTANCE_ID: `${service}-${n}` });
  const running = await Promise.all(Array.from({ length: replicas }, (_, i) => ServiceProcess.start(service, envOf(i + 1))));
  try {
    const ready = await memoryOf(running[0]!);
    if (service === 'ingress') await sendWebhooks(running, apiKey);
    const loaded = await memoryOf(running[0]!);
    const began = Date.now();
    await running[0]!.kill();
    running[0] = await ServiceProcess.start(service, envOf(1));
    const restartMs = Date.now() - began;
    return { service, keys, replicas, ready, loaded, restartMs };
  } finally {
    await Promise.all(running.map((replica) => replica.stop()));
  }
}

/** `webhooks` webhooks with fresh request_ids, spread over the replicas, 32 at a time. */
async function sendWebhooks(replicas: ServiceProcess[], apiKey: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < webhooks) {
      const n = next++;
      const response = await fetch(`${replicas[n % replicas.length]!.url}/api/integration/partner/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({
          request_id: `scale-${randomUUID()}`,
          transaction_number: `TRX-${n % 1000}`,
          transaction_type: 'POLICY',
          status: 'POLICY_ACTIVE',
          documents: [{ type: 'POLICY_CERTIFICATE', url: 'https://docs.example/c.pdf', filename: 'c.pdf' }],
        }),
      });
      const answer = await response.text();
      if (response.status !== 200) throw new Error(`the ingress answered ${response.status} to a webhook: ${answer.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const began = Date.now();
  await work();
  return Date.now() - began;
}

function print(rows: Row[]): void {
  const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);
  console.log('\nper replica (the first), once ready and after the load; restart: kill -9 to its successor ready');
  console.log(
    markdownTable(
      ['service', 'entries in store', 'replicas', 'heap ready MB', 'RSS ready MB', 'heap loaded MB', 'RSS loaded MB', 'restart to ready s'],
      rows.map((r) => [
        r.service,
        r.keys.toLocaleString('en'),
        String(r.replicas),
        mb(r.ready.heapUsed),
        mb(r.ready.rss),
        mb(r.loaded.heapUsed),
        mb(r.loaded.rss),
        (r.restartMs / 1000).toFixed(1),
      ]),
    ),
  );
  console.log('\nheap against N (one replica, once ready), extrapolated to 1,000/s for 24 h (86.4 M entries)');
  const [low, high] = [Math.min(...keyCounts), Math.max(...keyCounts)];
  console.log(
    markdownTable(
      [
        'service',
        `heap at ${low.toLocaleString('en')} MB`,
        `heap at ${high.toLocaleString('en')} MB`,
        'bytes per entry',
        'heap at 86.4 M entries MB',
      ],
      STATEFUL_SERVICES.map((service) => {
        const at = (keys: number) => rows.find((r) => r.service === service && r.keys === keys && r.replicas === 1)!.ready.heapUsed;
        const perEntry = (at(high) - at(low)) / (high - low);
        return [service, mb(at(low)), mb(at(high)), perEntry.toFixed(1), mb(at(high) + Math.max(0, perEntry) * (DAY_AT_1000_PER_S - high))];
      }),
    ),
  );
}

runBench(main, 40 * 60_000);
