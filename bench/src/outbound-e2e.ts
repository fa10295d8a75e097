/**
 * Benchmark: outbound end to end. A policy-status event is published; the policy-status-consumer
 * turns it into a callback request (one Kafka transaction per batch); the callback-sender signs
 * it (HMAC_SHA256) and POSTs it; the partner's receiver answers 200. Latency is the time from
 * when the event was due to be published to when its callback arrived (same machine clock),
 * at a fixed offered rate, or at each rate of a sweep on the same stack and services.
 *
 *   npm run bench:outbound-e2e      (starts a throwaway local stack around it)
 *
 * Both services run as child processes from their compiled dist/main.js, logging at warn; the
 * receiver is a bare node:http server in a child process of its own, so it shares an event loop
 * with neither the publisher nor the services.
 *
 * Env: BENCH_RATES (a sweep: comma-separated events/s, e.g. 20,200,1000, measured in that order),
 * else BENCH_RATE (one rate, default 1000); BENCH_SECONDS (measured per rate, default 30),
 * BENCH_WARMUP_SECONDS (published before each rate's window at that rate, not counted, default 60:
 * the throwaway broker's JVM and the services start cold, and over their first half-minute under
 * load the policy-status transactions' p99 was about 4 times its later value; a few seconds of
 * warm-up measure that, not the steady state. After 30 s the broker's C2 compiler still took 20 %
 * of a core over the next 10 s, on a machine ~75 % busy, and ≤ 7 % only from about 50 s on (perf)),
 * BENCH_TRACE=1 (splits the latency where callback requests become readable, with a child
 * reading callback-requests; adds load), BENCH_PROFILE=<dir> (both services write a V8 CPU
 * profile there when they stop), BENCH_SERVICE_NODE_ARGS (node flags for
 * both services, e.g. "--trace-gc-nvp"), BENCH_SERVICE_OUTPUT_DIR (each service's whole standard
 * output is copied to <name>.log there), BENCH_TIMELINE=1 (p99 and max per BENCH_TIMELINE_MS of
 * the window, default 1000, with the epoch it starts at). The services' own settings (e.g.
 * SENDER_PARTNER_CONCURRENCY) pass through from the environment.
 * Prints, per rate: offered and achieved rates, p50/p90/p99/max, callbacks received of those
 * published, the goal, the services' stage histograms over the window, and the CPU of each
 * process; then one summary table, a row per rate (latency, goal 1, CPU per process, system CPU
 * per 1,000 deliveries, policy-status transactions), and goal 2's cost ratio when the sweep has
 * both 200/s and 1,000/s. Exits 0 when a goal is missed, 1 when the run itself fails.
 */
import { routeProcessWarnings } from '@hookstream/runtime';
import { CallbackReceiver, CommitTracer } from './outbound/arrival-log';
import { measureRate, type E2eRig } from './outbound/e2e-rate';
import { FixedRatePublisher } from './outbound/fixed-rate-publisher';
import { CALLBACK_PATH, prepareOutboundStack, startOutboundServices } from './outbound/outbound-stack';
import { describeCostRatio, sweepTable, type RateRow } from './outbound/rate-sweep';
import { envNumber, envNumberList, runBench } from './support/bench-run';

const sweep = process.env.BENCH_RATES?.trim() ? 'BENCH_RATES' : undefined;
const rates = sweep ? envNumberList('BENCH_RATES', []) : [envNumber('BENCH_RATE', 1000)];
const seconds = envNumber('BENCH_SECONDS', 30);
const DEFAULT_WARMUP_SECONDS = 60;
const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', DEFAULT_WARMUP_SECONDS, 0);
const trace = process.env.BENCH_TRACE === '1';
const timelineBucketMs = process.env.BENCH_TIMELINE === '1' ? envNumber('BENCH_TIMELINE_MS', 1000) : undefined;

/** After publishing, how long without a new callback before the missing ones are given up on. */
const STALL_MS = 15_000;
const PARTNER = 'bench-e2e';

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const stack = await prepareOutboundStack(process.env);
  const receiver = await CallbackReceiver.start();
  await stack.onboard(PARTNER, `${receiver.answeringUrl}${CALLBACK_PATH}`);
  const { consumer, sender } = await startOutboundServices(stack);
  const tracer = trace ? await CommitTracer.start(stack) : undefined;
  const publisher = new FixedRatePublisher(stack);
  await publisher.connect();
  const rig: E2eRig = { publisher, consumer, sender, receiver, tracer, partnerId: PARTNER };
  try {
    console.log(
      `outbound end to end: policy-status → policy-status-consumer → callback-requests → callback-sender → receiver (HTTP 200); ` +
        `1 partner (HMAC_SHA256), 6 partitions, each event its own policy; Node ${process.versions.node}`,
    );
    const warmupSource = process.env.BENCH_WARMUP_SECONDS?.trim() ? 'BENCH_WARMUP_SECONDS' : 'the default';
    console.log(
      `offered: ${rates.map((r) => `${r}/s`).join(', ')}${sweep ? ` (${sweep}, in this order, one stack and one set of services)` : ''}; ` +
        `each rate ${seconds} s measured after a ${warmupSeconds} s warm-up at that rate (not counted; ${warmupSource})`,
    );
    const rows: RateRow[] = [];
    for (const [index, rate] of rates.entries()) {
      rows.push(await measureRate(rig, { rate, seconds, warmupSeconds, stallMs: STALL_MS, timelineBucketMs }, index));
    }
    console.log(
      `\nsummary (${seconds} s per rate after a ${warmupSeconds} s warm-up; CPU in % of a core over the window; ` +
        `system CPU per 1,000 deliveries = consumer + sender + broker, CPU-seconds; ` +
        `transactions = policy-status transactions for the window's events):`,
    );
    console.log(sweepTable(rows));
    const costLine = describeCostRatio(rows);
    if (costLine) console.log(costLine);
  } finally {
    await publisher.disconnect().catch(() => undefined);
    await Promise.all([consumer.stop(), sender.stop()]);
  }
}

runBench(main, (rates.length * (warmupSeconds + seconds) * 2 + 300) * 1000);
