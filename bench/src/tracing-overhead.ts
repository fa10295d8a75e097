/**
 * Benchmark: what tracing costs, and where a callback's milliseconds go. The outbound path (a
 * policy event → policy-status-consumer → callback-requests → callback-sender → a receiver answering
 * 200, bench:outbound-e2e's rig) at one fixed rate, its two services started afresh for each of
 * three settings (off, 10 %, 100 %: tracing/settings.ts), interleaved over rounds so that drift
 * falls on all alike. The ingress's half is bench:tracing-ingress (tracing-ingress.ts).
 *
 * Prints per setting and round the latency from due publish to callback (p50, p99), each process's
 * CPU and the system's CPU per 1,000 deliveries; then, from the last 100 % round's traces as Jaeger
 * keeps them, the latency of each hop (trace-hops.ts).
 *
 *   npm run bench:tracing      (starts a throwaway local stack and a Jaeger around it)
 *
 * Env: BENCH_RATE (events/s, default 200), BENCH_SECONDS (measured per setting, default 20),
 * BENCH_WARMUP_SECONDS (before each, not counted, default 30), BENCH_ROUNDS (default 2).
 */
import os from 'node:os';
import { routeProcessWarnings } from '@hookstream/runtime';
import { CallbackReceiver } from './outbound/arrival-log';
import { measureRate, type E2eRig } from './outbound/e2e-rate';
import { FixedRatePublisher } from './outbound/fixed-rate-publisher';
import { CALLBACK_PATH, prepareOutboundStack, startOutboundServices } from './outbound/outbound-stack';
import { SYSTEM_PROCESSES, systemCpuPer1000, type RateRow } from './outbound/rate-sweep';
import { markdownTable } from './support/markdown-table';
import { envNumber, runBench } from './support/bench-run';
import { TRACING_SETTINGS, startBenchJaeger, tracingEnv } from './tracing/settings';
import { traceHops } from './tracing/trace-hops';

const rate = envNumber('BENCH_RATE', 200);
const seconds = envNumber('BENCH_SECONDS', 20);
const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 30, 0);
const rounds = envNumber('BENCH_ROUNDS', 2);
const PARTNER = 'bench-tracing';

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const { jaeger, stop: stopJaeger } = await startBenchJaeger();
  const stack = await prepareOutboundStack(process.env);
  const receiver = await CallbackReceiver.start();
  await stack.onboard(PARTNER, `${receiver.answeringUrl}${CALLBACK_PATH}`);
  const publisher = new FixedRatePublisher(stack);
  await publisher.connect();
  console.log(
    `tracing overhead: outbound end to end at ${rate} events/s, ${seconds} s measured after ${warmupSeconds} s of warm-up per setting, ` +
      `${rounds} rounds of ${TRACING_SETTINGS.map((s) => s.name).join(', ')}; Jaeger v1.76.0 on this machine; Node ${process.versions.node}, ${os.cpus().length} cores`,
  );
  const rows: Array<{ setting: string; round: number; row: RateRow }> = [];
  let lastFullWindow: { fromMs: number; toMs: number } | undefined;
  let index = 0;
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const setting of TRACING_SETTINGS) {
        const services = await startOutboundServices({ ...stack, serviceEnv: tracingEnv(stack.serviceEnv, setting, jaeger.otlpUrl) });
        const rig: E2eRig = { publisher, ...services, receiver, tracer: undefined, partnerId: PARTNER };
        const fromMs = Date.now();
        try {
          console.log(`\n=== round ${round}, tracing ${setting.name} ===`);
          rows.push({
            setting: setting.name,
            round,
            row: await measureRate(rig, { rate, seconds, warmupSeconds, stallMs: 15_000, timelineBucketMs: undefined }, index++),
          });
        } finally {
          await Promise.all([services.consumer.stop(), services.sender.stop()]);
        }
        if (setting.name === '100 %') lastFullWindow = { fromMs: fromMs + warmupSeconds * 1000, toMs: Date.now() };
      }
    }
    console.log(
      `\nsummary (CPU in % of a core over each window; system CPU per 1,000 deliveries = consumer + sender + broker, CPU-seconds):`,
    );
    console.log(
      markdownTable(
        ['tracing', 'round', 'delivered', 'p50', 'p99', ...SYSTEM_PROCESSES, 'system CPU per 1,000'],
        rows.map(({ setting, round, row }) => [
          setting,
          String(round),
          `${row.received} of ${row.published}`,
          `${row.latency.p50.toFixed(1)} ms`,
          `${row.latency.p99.toFixed(1)} ms`,
          ...SYSTEM_PROCESSES.map((p) =>
            row.cpuSeconds[p] === undefined ? 'n/a' : `${((row.cpuSeconds[p] / row.windowSeconds) * 100).toFixed(1)} %`,
          ),
          `${systemCpuPer1000(row)?.toFixed(2) ?? 'n/a'} s`,
        ]),
      ),
    );
    if (lastFullWindow) {
      // The exporters send within 5 s of a span's end; the services have stopped, so everything is in.
      const hops = await traceHops(jaeger.uiUrl, lastFullWindow.fromMs, lastFullWindow.toMs);
      console.log(
        `\nwhere the milliseconds go (the last 100 % round: ${hops.traces} traces of callbacks delivered at their first attempt):`,
      );
      console.log(hops.table);
    }
  } finally {
    await publisher.disconnect().catch(() => undefined);
    await stopJaeger();
  }
}

runBench(main, (rounds * TRACING_SETTINGS.length * (warmupSeconds + seconds + 60) + 300) * 1000);
