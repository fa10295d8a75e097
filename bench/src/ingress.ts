/**
 * Benchmark: the ingress (API key, validation, request_id idempotency through the ledger, Avro,
 * durable write) against two baselines: a bare express route that parses the JSON and returns a
 * fixed body (bare-route.ts), and a durable floor that parses it and writes it with one batched
 * acks=all produce (durable-floor.ts: no auth, no dedupe; the least any durable ingress must do).
 * Same machine, same run, same load tool (autocannon), same connection count and bodies.
 *
 *   npm run bench:ingress      (starts a throwaway local stack around it)
 *
 * Env: BENCH_CONNECTIONS (default 50), BENCH_SECONDS (each phase, default 10).
 * Phases: a warm-up of the ingress and one of the durable floor (not counted), then the bare
 * route, the durable floor, the ingress, and the ingress at half the bare rate.
 * Prints: req/s and p50/p99 of each, each phase's CPU (the process's own µs per 2xx), the goals
 * (ingress CPU per accepted webhook ÷ the bare route's; ingress throughput ÷ the durable floor's),
 * and the ingress's latency at half the bare rate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type autocannon from 'autocannon';
import { TopicNames, ensureTopics, topicCatalogue, type Kafka } from '@hookstream/kafka';
import { routeProcessWarnings } from '@hookstream/runtime';
import { describeCpuGoal, describeThroughputGoal, type PhaseFigures } from './ingress/ingress-goals';
import { WEBHOOK_PATH, offerWebhooks } from './ingress/webhook-load';
import { REPO_ROOT, envNumber, runBench, trackChild } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { CpuWindow, stackProcesses } from './support/cpu-usage';
import { ServiceProcess } from './support/service-process';

const connections = envNumber('BENCH_CONNECTIONS', 50);
const seconds = envNumber('BENCH_SECONDS', 10);

function startChild(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  urlPattern: RegExp,
): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const url = urlPattern.exec(line)?.[1];
      if (url) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function load(url: string, apiKey: string | undefined, overallRate?: number): Promise<autocannon.Result> {
  return offerWebhooks(url, apiKey, { connections, seconds, ...(overallRate ? { overallRate } : {}) });
}

/** Mean time of the ingress's stages over the whole run, from its /metrics. */
async function stageTimes(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const mean = (name: string) => {
    const sum = Number(new RegExp(`^${name}_sum(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
    const count = Number(new RegExp(`^${name}_count(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
    return count > 0 ? `${((sum / count) * 1000).toFixed(1)} ms` : 'n/a';
  };
  return `ingress stage means: claim round trip ${mean('hookstream_ingress_claim_duration_seconds')}, partner-event write ${mean('hookstream_ingress_produce_duration_seconds')}`;
}

/**
 * Runs `phase` (the load on the process `name`), prints its figures and where the CPU went
 * meanwhile (the process, this one, which runs the load tool, the broker and the machine) with the
 * process's own CPU per 2xx, and gives its 2xx per second and that CPU.
 */
async function measurePhase(
  label: string,
  name: string,
  pid: number | undefined,
  phase: () => Promise<autocannon.Result>,
): Promise<PhaseFigures & { result: autocannon.Result }> {
  const window = CpuWindow.start({ [name]: pid, ...stackProcesses() }, 'bench (autocannon)');
  const result = await phase();
  const used = window.cpuSecondsOf(name);
  const cpuPerRequestUs = used !== undefined && result['2xx'] > 0 ? (used / result['2xx']) * 1e6 : undefined;
  const perRequest = cpuPerRequestUs === undefined ? 'n/a' : `${cpuPerRequestUs.toFixed(0)} µs`;
  console.log(line(label, result));
  console.log(`  CPU: ${window.describe()}; ${name} ${perRequest} per 2xx`);
  return { result, perSecond: result['2xx'] / result.duration, cpuPerRequestUs };
}

function line(label: string, r: autocannon.Result): string {
  const ok = r['2xx'];
  return `${label.padEnd(50)} ${(ok / r.duration).toFixed(0).padStart(6)} req/s (2xx)  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  errors ${r.errors}`;
}

/** The durable floor's topic: made as partner-events is (partitions, retention), under a prefix no service reads. */
async function durableFloorTopic(kafka: Kafka, prefix: string): Promise<string> {
  const spec = topicCatalogue({ prefix: `${prefix}floor.`, partitions: 6 }).find((t) => t.name === TopicNames.partnerEvents)!;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, [spec]);
  } finally {
    await admin.disconnect();
  }
  return spec.topic;
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const env = process.env;
  const { prefix, kafka, onboard } = await prepareBenchStack(env, []);
  const { apiKey } = await onboard({ partner_id: 'bench', name: 'Bench' });

  const urlLine = /^(http:\/\/\S+)$/;
  const bare = await startChild(path.join(REPO_ROOT, 'bench/dist/bare-route.js'), [], env, urlLine);
  trackChild(bare.child);
  const floorTopic = await durableFloorTopic(kafka, prefix);
  const floor = await startChild(path.join(REPO_ROOT, 'bench/dist/durable-floor.js'), [floorTopic], env, urlLine);
  trackChild(floor.child);
  // The ingress logs at warn here, as a loaded production replica would, so that logging does
  // not weigh on the figures.
  const ingress = await ServiceProcess.start('ingress', { ...env, TOPIC_PREFIX: prefix });
  try {
    console.log(`${connections} connections, ${seconds} s each, unique request_ids, Node ${process.versions.node}`);
    // Warm-ups (not counted): JIT, connections, producer ids, the ledger's transactions.
    await load(`${ingress.url}${WEBHOOK_PATH}`, apiKey);
    await load(`${floor.url}${WEBHOOK_PATH}`, undefined);
    const baseline = await measurePhase('baseline: bare express JSON route', 'bare route', bare.child.pid, () =>
      load(`${bare.url}${WEBHOOK_PATH}`, undefined),
    );
    const durable = await measurePhase('durable floor (JSON, one batched acks=all produce)', 'durable floor', floor.child.pid, () =>
      load(`${floor.url}${WEBHOOK_PATH}`, undefined),
    );
    const full = await measurePhase('ingress (auth, dedupe, durable write)', 'ingress', ingress.pid, () =>
      load(`${ingress.url}${WEBHOOK_PATH}`, apiKey),
    );
    console.log(describeCpuGoal(full, baseline));
    console.log(describeThroughputGoal(full, durable));
    console.log(`for comparison: ${((full.perSecond / baseline.perSecond) * 100).toFixed(0)} % of the bare route's throughput`);
    const half = Math.round(baseline.perSecond / 2);
    const atHalf = await measurePhase(`ingress at half the bare rate (${half}/s)`, 'ingress', ingress.pid, () =>
      load(`${ingress.url}${WEBHOOK_PATH}`, apiKey, half),
    );
    console.log(`p99 at half rate: ${atHalf.result.latency.p99} ms (goal: under 25 ms)`);
    console.log(await stageTimes(ingress.opsUrl));
  } finally {
    bare.child.kill('SIGTERM');
    floor.child.kill('SIGTERM');
    await ingress.stop();
  }
}

runBench(main, (seconds * 6 + 240) * 1000);
