/**
 * Benchmark: what tracing costs on the ingress path (bench:tracing's other half). The ingress
 * (API key, validation, request_id idempotency through the ledger in PostgreSQL, Avro, durable
 * write), started afresh for each of the three settings (off, 10 %, 100 %: tracing/settings.ts) as
 * bench:ingress starts it, the settings interleaved over rounds so that drift falls on all alike.
 * Each is warmed up (not counted), then offered a fixed rate of webhooks (bench:ingress's bodies,
 * unique request_ids): at a fixed rate a dearer setting shows as CPU and latency, not as fewer
 * webhooks, and the CPU per webhook compares like with like.
 *
 * Prints per setting and round: webhooks accepted, p50 and p99, the ingress's share of a core and
 * its own CPU per accepted webhook, the broker's, PostgreSQL's (its postmaster and every backend)
 * and Jaeger's shares, and the system's CPU per 1,000 accepted (ingress + broker + registry +
 * PostgreSQL; Jaeger beside it, not in it); then the last round's ratios against tracing off, and
 * how many of each last-round window's ingress traces Jaeger holds (none when off, about a tenth
 * at 10 %, up to the query's limit at 100 %): a bench that exported nothing would have measured nothing.
 *
 *   npm run bench:tracing-ingress      (starts a throwaway local stack and a Jaeger around it)
 *
 * Env: BENCH_RATE (webhooks/s offered, default 1000), BENCH_CONNECTIONS (default 50), BENCH_SECONDS
 * (measured per setting, default 20), BENCH_WARMUP_SECONDS (before each, at the same rate, not
 * counted, default 20), BENCH_ROUNDS (default 2).
 */
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { routeProcessWarnings } from '@hookstream/runtime';
import { WEBHOOK_PATH, offerWebhooks } from './ingress/webhook-load';
import { envNumber, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { CpuWindow, stackProcesses } from './support/cpu-usage';
import { ServiceProcess } from './support/service-process';
import { ingressTracingTable, lastRoundRatios, type IngressRow } from './tracing/ingress-rows';
import { TRACING_SETTINGS, startBenchJaeger, tracingEnv } from './tracing/settings';

const rate = envNumber('BENCH_RATE', 1000);
const connections = envNumber('BENCH_CONNECTIONS', 50);
const seconds = envNumber('BENCH_SECONDS', 20);
const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 20, 0);
const rounds = envNumber('BENCH_ROUNDS', 2);
/** Traces asked of Jaeger per window: enough to tell none, a tenth and all apart, small enough to answer quickly. */
const TRACE_QUERY_LIMIT = 5000;

/** How many traces of the ingress Jaeger holds that began between `fromMs` and `toMs` (at most `TRACE_QUERY_LIMIT`). */
async function ingressTraces(jaegerUrl: string, fromMs: number, toMs: number): Promise<number> {
  const url =
    `${jaegerUrl}/api/traces?service=ingress&limit=${TRACE_QUERY_LIMIT}` +
    `&start=${Math.floor(fromMs * 1000)}&end=${Math.ceil(toMs * 1000)}`;
  const found = (await (await fetch(url)).json()) as { data: unknown[] | null };
  return found.data?.length ?? 0;
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const { jaeger, stop: stopJaeger } = await startBenchJaeger();
  const { prefix, onboard } = await prepareBenchStack(process.env, []);
  const { apiKey } = await onboard({ partner_id: 'bench', name: 'Bench' });
  console.log(
    `tracing overhead: ingress at ${rate} webhooks/s offered (${connections} connections), ${seconds} s measured after ` +
      `${warmupSeconds} s of warm-up per setting, ${rounds} rounds of ${TRACING_SETTINGS.map((s) => s.name).join(', ')}; ` +
      `Jaeger v1.76.0 on this machine; Node ${process.versions.node}, ${os.cpus().length} cores`,
  );
  const rows: IngressRow[] = [];
  const lastWindows = new Map<string, { fromMs: number; toMs: number; accepted: number }>();
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const setting of TRACING_SETTINGS) {
        console.log(`\n=== round ${round}, tracing ${setting.name} ===`);
        // The ingress logs at warn, as in bench:ingress, so that logging does not weigh on the figures.
        const ingress = await ServiceProcess.start(
          'ingress',
          tracingEnv({ ...process.env, TOPIC_PREFIX: prefix }, setting, jaeger.otlpUrl),
        );
        try {
          const url = `${ingress.url}${WEBHOOK_PATH}`;
          // Not counted: JIT, connections, producer ids, the ledger's transactions and PostgreSQL's cache.
          if (warmupSeconds > 0) await offerWebhooks(url, apiKey, { connections, seconds: warmupSeconds, overallRate: rate });
          const fromMs = Date.now();
          const window = CpuWindow.start({ ingress: ingress.pid, ...stackProcesses(), jaeger: jaeger.pid }, 'bench (autocannon)');
          const result = await offerWebhooks(url, apiKey, { connections, seconds, overallRate: rate });
          const usage = window.usage();
          console.log(
            `accepted ${result['2xx']} of ${rate * seconds} offered (non-2xx ${result.non2xx}, errors ${result.errors}), ` +
              `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; CPU: ${window.describe()}`,
          );
          ingress.checkAlive();
          rows.push({ setting: setting.name, round, offered: rate * seconds, result, ...usage });
          if (round === rounds) lastWindows.set(setting.name, { fromMs, toMs: Date.now(), accepted: result['2xx'] });
        } finally {
          // SIGTERM: the ingress flushes its spans to Jaeger before it exits.
          await ingress.stop();
        }
      }
    }
    console.log(
      '\nsummary (CPU in % of a core over each measured window; system CPU per 1,000 accepted = ingress + broker + registry + PostgreSQL, CPU-seconds; Jaeger not in it):',
    );
    console.log(ingressTracingTable(rows));
    console.log(`\nround ${rounds} against tracing off:`);
    console.log(lastRoundRatios(rows, rounds));
    // Jaeger's batch processor stores what the last ingress flushed as it stopped within 200 ms.
    await sleep(1000);
    console.log(`\ntraces of the ingress Jaeger holds from round ${rounds}'s measured windows (asked for at most ${TRACE_QUERY_LIMIT}):`);
    for (const [name, window] of lastWindows) {
      const held = await ingressTraces(jaeger.uiUrl, window.fromMs, window.toMs);
      console.log(`  ${name}: ${held} for ${window.accepted} webhooks accepted`);
      if (name === '100 %' && held === 0)
        throw new Error('Jaeger holds no trace of the ingress at 100 %: nothing was exported, so nothing was measured');
    }
  } finally {
    await stopJaeger();
  }
}

runBench(main, (rounds * TRACING_SETTINGS.length * (warmupSeconds + seconds + 60) + 300) * 1000);
