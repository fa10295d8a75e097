/**
 * Benchmark: the ingress (API key, validation, request_id idempotency through the ledger, Avro,
 * durable transactional write) against a bare express route that parses the JSON and returns a
 * fixed body. Same machine, same run, same load tool (autocannon), same connection count.
 *
 *   npm run bench:ingress      (starts a throwaway local stack around it)
 *
 * Env: BENCH_CONNECTIONS (default 50), BENCH_SECONDS (default 10).
 * Prints: req/s and p50/p99 of each, the ratio, and the ingress's latency at half the bare rate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { routeProcessWarnings } from '@hookstream/shared';
import { REPO_ROOT, envNumber, runBench, trackChild } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { CpuWindow, stackProcesses } from './support/cpu-usage';
import { ServiceProcess } from './support/service-process';

const connections = envNumber('BENCH_CONNECTIONS', 50);
const seconds = envNumber('BENCH_SECONDS', 10);
function startChild(script: string, env: NodeJS.ProcessEnv, urlPattern: RegExp): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const url = urlPattern.exec(line)?.[1];
      if (url) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function load(url: string, apiKey: string | undefined, overallRate?: number): Promise<autocannon.Result> {
  let n = 0;
  const body = (id: number) =>
    JSON.stringify({
      request_id: `bench-${process.pid}-${Date.now()}-${id}`,
      transaction_number: `TRX-${id % 1000}`,
      transaction_type: 'POLICY',
      status: 'POLICY_ACTIVE',
      documents: [{ type: 'POLICY_CERTIFICATE', url: 'https://docs.example/c.pdf', filename: 'c.pdf' }],
    });
  return autocannon({
    url,
    connections,
    duration: seconds,
    ...(overallRate ? { overallRate } : {}),
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
        setupRequest: (request) => ({ ...request, body: body(n++) }),
      },
    ],
  });
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
 * Runs `phase` and says where the CPU went meanwhile (the service, this process, which runs the
 * load tool, the broker and the machine), with the service's CPU per 2xx.
 */
async function withCpu(
  name: string,
  pid: number | undefined,
  phase: () => Promise<autocannon.Result>,
): Promise<[autocannon.Result, string]> {
  const window = CpuWindow.start({ [name]: pid, ...stackProcesses() }, 'bench (autocannon)');
  const result = await phase();
  const used = window.cpuSecondsOf(name);
  const perRequest = used !== undefined && result['2xx'] > 0 ? `${((used / result['2xx']) * 1e6).toFixed(0)} µs` : 'n/a';
  return [result, `  CPU: ${window.describe()}; ${name} ${perRequest} per 2xx`];
}

function line(label: string, r: autocannon.Result): string {
  const ok = r['2xx'];
  return `${label.padEnd(38)} ${(ok / r.duration).toFixed(0).padStart(6)} req/s (2xx)  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  errors ${r.errors}`;
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const env = process.env;
  const { prefix, onboard } = await prepareBenchStack(env, []);
  const { apiKey } = await onboard({ partner_id: 'bench', name: 'Bench' });

  const bare = await startChild(path.join(REPO_ROOT, 'bench/dist/bare-route.js'), env, /^(http:\/\/\S+)$/);
  trackChild(bare.child);
  // The ingress logs at warn here, as a loaded production replica would, so that logging does
  // not weigh on the figures.
  const ingress = await ServiceProcess.start('ingress', { ...env, TOPIC_PREFIX: prefix });
  try {
    const webhookPath = '/api/integration/partner/webhook';
    console.log(`${connections} connections, ${seconds} s each, unique request_ids, Node ${process.versions.node}`);
    await load(`${ingress.url}${webhookPath}`, apiKey); // warm-up: JIT, connections, transactions
    const [baseline, bareCpu] = await withCpu('bare route', bare.child.pid, () => load(`${bare.url}${webhookPath}`, undefined));
    console.log(line('baseline: bare express JSON route', baseline));
    console.log(bareCpu);
    const [full, fullCpu] = await withCpu('ingress', ingress.pid, () => load(`${ingress.url}${webhookPath}`, apiKey));
    console.log(line('ingress (auth, dedupe, durable write)', full));
    console.log(fullCpu);
    const ratio = full['2xx'] / full.duration / (baseline['2xx'] / baseline.duration);
    console.log(`ratio: ${(ratio * 100).toFixed(0)} % of the bare route's throughput (goal: at least 60 %)`);
    const half = Math.round(baseline['2xx'] / baseline.duration / 2);
    const [atHalf, halfCpu] = await withCpu('ingress', ingress.pid, () => load(`${ingress.url}${webhookPath}`, apiKey, half));
    console.log(line(`ingress at half the bare rate (${half}/s)`, atHalf));
    console.log(halfCpu);
    console.log(`p99 at half rate: ${atHalf.latency.p99} ms (goal: under 25 ms)`);
    console.log(await stageTimes(ingress.url));
  } finally {
    bare.child.kill('SIGTERM');
    await ingress.stop();
  }
}

runBench(main, (seconds * 4 + 240) * 1000);
