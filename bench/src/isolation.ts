/**
 * Benchmark: partner isolation. A healthy partner's callbacks (throughput and end-to-end p99)
 * with and without a black-holed partner beside it, in one run: two phases with fresh partners,
 * the same policy-status-consumer and callback-sender (child processes) throughout.
 *
 *   npm run bench:isolation      (starts a throwaway local stack around it)
 *
 * Phase A: the healthy partner alone at BENCH_RATE (its warm-up 70 s longer: it warms the services
 * and the throwaway broker's JVM too, so that order does not favour phase B, and its first
 * seconds include a partner that is down and then recovers, so the retry paths are warm as well:
 * see FAILURE_WARMUP). Phase B: a new healthy partner at the same rate
 * and, over the same measured window, a partner whose endpoint accepts connections and never
 * answers (timeout_ms BENCH_BLACKHOLE_TIMEOUT_MS) at BENCH_BLACKHOLE_RATE. The black hole's events
 * start with the measured window, so its first timeouts (before its circuit opens) fall inside it.
 * Latency is from when an event was due to be published to when its callback arrived.
 * Phase C (a control, not a goal): a new healthy partner beside a second healthy partner at the
 * black hole's rate. B against C tells the black hole's own cost from that of the extra load
 * alone on this machine; B against A is the goal.
 *
 * Env: BENCH_RATE (healthy events/s, default 500), BENCH_BLACKHOLE_RATE (default 100),
 * BENCH_SECONDS (measured per phase, default 20), BENCH_WARMUP_SECONDS (healthy partner only,
 * not counted, default 3), BENCH_BLACKHOLE_TIMEOUT_MS (default 1000), BENCH_TIMELINE=1 (the
 * healthy latency's p99 and max per BENCH_TIMELINE_MS, default 1000, with the epoch the window
 * starts at), BENCH_TRACE=1 (splits the latency where callback requests become readable; adds
 * load), BENCH_PROFILE=<dir>. The
 * services' own settings (BREAKER_FAILURE_THRESHOLD, BREAKER_OPEN_MS, SENDER_PARTNER_CONCURRENCY,
 * …) pass through from the environment.
 * BENCH_CONTROL=0 leaves phase C out.
 * Prints: each phase's figures, the ratios and the goals, and what the sender did with the black
 * hole. Exits 0 when a goal is missed, 1 when the run itself fails.
 */
import { routeProcessWarnings } from '@hookstream/runtime';
import { CallbackReceiver, CommitTracer } from './outbound/arrival-log';
import type { EventStream, PublishReport } from './outbound/event-stream';
import { FixedRatePublisher } from './outbound/fixed-rate-publisher';
import {
  arrivalsOf,
  describeLatency,
  describeStages,
  describeTimeline,
  fmtMs,
  streamFigures,
  type StreamFigures,
} from './outbound/latency-figures';
import { publishMeasured, waitForArrivals } from './outbound/measured-publish';
import { CALLBACK_PATH, prepareOutboundStack, startOutboundServices, type OutboundStack } from './outbound/outbound-stack';
import { describeEventLoopDelay, describeGcPauses, describeStageHistograms, stageHistograms } from './outbound/service-figures';
import { envNumber, runBench } from './support/bench-run';
import { counterSum } from './support/metrics-page';
import type { ServiceProcess } from './support/service-process';

const rate = envNumber('BENCH_RATE', 500);
const blackHoleRate = envNumber('BENCH_BLACKHOLE_RATE', 100);
const seconds = envNumber('BENCH_SECONDS', 20);
const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 3, 0);
const blackHoleTimeoutMs = envNumber('BENCH_BLACKHOLE_TIMEOUT_MS', 1000);
const trace = process.env.BENCH_TRACE === '1';
const control = process.env.BENCH_CONTROL !== '0';
const timeline = process.env.BENCH_TIMELINE === '1';
const timelineBucketMs = envNumber('BENCH_TIMELINE_MS', 1000);

/**
 * Added to phase A's warm-up: the services' and the throwaway broker's own (see outbound-e2e),
 * once per run. Its first seconds include a partner that is down, then recovers (failureWarmup).
 */
const SERVICE_WARMUP_SECONDS = 70;
/**
 * The failure warm-up: a partner whose endpoint hangs for its first seconds and then answers,
 * sent to at the black hole's rate. Its attempts time out, its circuit opens, its records go
 * through retry tiers 1 and 2 and are delivered once its probe succeeds (~31 s on the default
 * settings; those that came due while the probe was in flight were skipped once more and arrive
 * ~30 s later), all before phase A's measured window (the bench prints when the last arrived).
 * Without it the first failure of the run is the first in the throwaway broker's life: its JIT
 * compiles the retry paths then (a C2 compiler thread at ~75 % of a core for a second, perf), and
 * every partner's callbacks wait, which measures a cold broker rather than a black hole beside a
 * healthy partner.
 */
const FAILURE_WARMUP = { sendMs: 2_000, downMs: 3_000 };
const GOAL_THROUGHPUT_RATIO = 0.9;
const GOAL_P99_RATIO = 1.2;
/** After publishing, how long without a new healthy callback before the missing ones are given up on. */
const STALL_MS = 15_000;

interface Services {
  consumer: ServiceProcess;
  sender: ServiceProcess;
  tracer: CommitTracer | undefined;
}

/** Who sends beside the healthy partner in a phase. */
type Neighbour = 'none' | 'black-hole' | 'healthy';

/** One phase: fresh partners, a warm-up of the healthy one, then the measured window. */
async function runPhase(
  name: 'a' | 'b' | 'c',
  neighbour: Neighbour,
  warmupMs: number,
  failureWarmup: boolean,
  stack: OutboundStack,
  receiver: CallbackReceiver,
  publisher: FixedRatePublisher,
  { consumer, sender, tracer }: Services,
): Promise<StreamFigures> {
  const healthyId = `iso-${name}-healthy`;
  const neighbourId = `iso-${name}-neighbour-${neighbour}`;
  const withBlackHole = neighbour === 'black-hole';
  await stack.onboard(healthyId, `${receiver.answeringUrl}${CALLBACK_PATH}`);
  if (withBlackHole) await stack.onboard(neighbourId, `${receiver.blackHoleUrl}${CALLBACK_PATH}`, blackHoleTimeoutMs);
  if (neighbour === 'healthy') await stack.onboard(neighbourId, `${receiver.answeringUrl}${CALLBACK_PATH}`);

  const warmup: EventStream = { label: `${name}-warmup`, partnerId: healthyId, rate, fromMs: 0, toMs: warmupMs };
  const measured = { fromMs: warmup.toMs, toMs: warmup.toMs + seconds * 1000 };
  const healthy: EventStream = { label: `${name}-healthy`, partnerId: healthyId, rate, ...measured };
  const neighbourStream: EventStream = {
    label: `${name}-neighbour-${neighbour}`,
    partnerId: neighbourId,
    rate: blackHoleRate,
    ...measured,
  };
  const streams = neighbour === 'none' ? [warmup, healthy] : [warmup, healthy, neighbourStream];
  let recovering: EventStream | undefined;
  if (failureWarmup) {
    const partnerId = `iso-${name}-recovering`;
    await stack.onboard(partnerId, `${receiver.downUntilUrl(Date.now() + FAILURE_WARMUP.downMs)}${CALLBACK_PATH}`, blackHoleTimeoutMs);
    recovering = { label: `${name}-recovering`, partnerId, rate: blackHoleRate, fromMs: 0, toMs: FAILURE_WARMUP.sendMs };
    streams.push(recovering);
  }

  const check = () => {
    consumer.checkAlive();
    sender.checkAlive();
  };
  const { report, atStart, cpuFigures } = await publishMeasured(
    publisher,
    streams,
    { fromMs: measured.fromMs, partnerId: healthyId },
    { consumer, sender, receiver, tracer },
  );
  await waitForArrivals(receiver, healthy.label, report.published.get(healthy.label) ?? 0, STALL_MS, check);
  const figures = streamFigures(receiver, report, healthy);
  const atEnd = await stageHistograms(consumer, sender, healthyId);
  const services = describeStageHistograms(atStart, atEnd);

  const title = {
    none: `phase A: healthy ${rate}/s alone`,
    'black-hole': `phase B: healthy ${rate}/s + black hole ${blackHoleRate}/s (timeout_ms ${blackHoleTimeoutMs})`,
    healthy: `phase C (control): healthy ${rate}/s + a second healthy partner at ${blackHoleRate}/s`,
  }[neighbour];
  console.log(title);
  console.log(
    `  healthy: ${figures.deliveredPerSecond.toFixed(0).padStart(4)} callbacks/s, received ${figures.received} of ${figures.published}` +
      (figures.received < figures.published ? ` (MISSING ${figures.published - figures.received})` : '') +
      `; end to end ${describeLatency(figures.latency)}`,
  );
  console.log(`  services over the window: ${services}`);
  console.log(`  event-loop delay: ${describeEventLoopDelay(atEnd)}`);
  console.log(`  GC pauses: ${describeGcPauses(atStart, atEnd)}`);
  if (withBlackHole) {
    await receiver.collect();
    const metrics = await sender.metrics();
    const circuit = counterSum(metrics, 'hookstream_callback_circuit_state', `partner="${neighbourId}"`);
    console.log(
      `  black hole: ${report.published.get(neighbourStream.label) ?? 0} published, ${receiver.blackHoled} requests accepted and never answered; ` +
        `${describeFailedAttempts(metrics, neighbourId)}; ` +
        `circuit ${['closed', 'half open', 'open'][circuit] ?? circuit}, in flight ${counterSum(metrics, 'hookstream_callback_in_flight', `partner="${neighbourId}"`)}`,
    );
  }
  if (tracer) {
    await tracer.collect();
    console.log(`  healthy stages: ${describeStages(tracer, receiver, healthy.label)}`);
  }
  if (recovering) {
    // The sender's counts show the failure path really ran (attempts that failed, records skipped).
    console.log(
      `  failure warm-up: ${describeFailureWarmup(receiver, report, recovering, measured.fromMs)}; ` +
        describeFailedAttempts(await sender.metrics(), recovering.partnerId),
    );
  }
  console.log(`  CPU over the measured window: ${cpuFigures}`);
  if (timeline) console.log(`  healthy over time (ms): ${describeTimeline(receiver, report, healthy, timelineBucketMs, tracer)}`);
  return figures;
}

/** A partner's failed attempts and circuit-open skips so far, from the sender's /metrics page. */
function describeFailedAttempts(metrics: string, partnerId: string): string {
  const of = (outcome: string) => counterSum(metrics, 'hookstream_callback_attempts_total', `partner="${partnerId}",outcome="${outcome}"`);
  return `sender attempts failed ${of('failed')}, skipped (circuit open) ${of('skipped_circuit_open')}`;
}

/** How the failure warm-up's partner fared: all its callbacks should arrive before the measured window. */
function describeFailureWarmup(receiver: CallbackReceiver, report: PublishReport, stream: EventStream, windowFromMs: number): string {
  let received = 0;
  let lastArrivedAt = -Infinity;
  for (const { arrivedAt } of arrivalsOf(receiver, stream.label)) {
    received += 1;
    lastArrivedAt = Math.max(lastArrivedAt, arrivedAt);
  }
  const published = report.published.get(stream.label) ?? 0;
  const windowStartsAt = report.startedAt + windowFromMs;
  const last =
    received === 0
      ? 'none arrived'
      : lastArrivedAt < windowStartsAt
        ? `the last ${((windowStartsAt - lastArrivedAt) / 1000).toFixed(1)} s before the measured window`
        : `the last ${((lastArrivedAt - windowStartsAt) / 1000).toFixed(1)} s INTO the measured window`;
  return `a partner down for its first ${FAILURE_WARMUP.downMs / 1000} s: ${received} of ${published} callbacks delivered after its recovery, ${last}`;
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const stack = await prepareOutboundStack(process.env);
  const receiver = await CallbackReceiver.start();
  const services = { ...(await startOutboundServices(stack)), tracer: trace ? await CommitTracer.start(stack) : undefined };
  const publisher = new FixedRatePublisher(stack);
  await publisher.connect();
  try {
    console.log(
      `isolation: one healthy partner's callbacks with and without a black-holed partner beside it; same services, fresh partners per phase; ` +
        `${seconds} s measured per phase after a ${warmupSeconds} s warm-up of its healthy partner (phase A: ${SERVICE_WARMUP_SECONDS + warmupSeconds} s, ` +
        `warming the services too, with a partner down for its first ${FAILURE_WARMUP.downMs / 1000} s); 6 partitions; Node ${process.versions.node}`,
    );
    const alone = await runPhase('a', 'none', (SERVICE_WARMUP_SECONDS + warmupSeconds) * 1000, true, stack, receiver, publisher, services);
    const beside = await runPhase('b', 'black-hole', warmupSeconds * 1000, false, stack, receiver, publisher, services);
    const loaded = control ? await runPhase('c', 'healthy', warmupSeconds * 1000, false, stack, receiver, publisher, services) : undefined;

    const throughputRatio = beside.deliveredPerSecond / alone.deliveredPerSecond;
    const p99Ratio = beside.latency.p99 / alone.latency.p99;
    console.log(
      `ratios (B / A): throughput ${(throughputRatio * 100).toFixed(0)} %, p99 ${(p99Ratio * 100).toFixed(0)} % ` +
        `(${fmtMs(beside.latency.p99)} vs ${fmtMs(alone.latency.p99)})`,
    );
    if (loaded) {
      console.log(
        `control (B / C, the same load with a healthy neighbour): p99 ${((beside.latency.p99 / loaded.latency.p99) * 100).toFixed(0)} % ` +
          `(${fmtMs(beside.latency.p99)} vs ${fmtMs(loaded.latency.p99)}); C / A: p99 ${((loaded.latency.p99 / alone.latency.p99) * 100).toFixed(0)} %`,
      );
    }
    console.log(
      `goals: throughput ${(throughputRatio * 100).toFixed(0)} % ${throughputRatio >= GOAL_THROUGHPUT_RATIO ? 'meets' : 'MISSES'} at least ${GOAL_THROUGHPUT_RATIO * 100} %; ` +
        `p99 ${((p99Ratio - 1) * 100).toFixed(0)} % ${p99Ratio <= GOAL_P99_RATIO ? 'meets' : 'MISSES'} within +${((GOAL_P99_RATIO - 1) * 100).toFixed(0)} % of phase A`,
    );
  } finally {
    await publisher.disconnect().catch(() => undefined);
    await Promise.all([services.consumer.stop(), services.sender.stop()]);
  }
}

runBench(main, ((SERVICE_WARMUP_SECONDS + 3 * (warmupSeconds + seconds)) * 2 + 300) * 1000);
