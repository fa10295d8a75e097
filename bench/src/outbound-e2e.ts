/**
 * Benchmark: outbound end to end. A policy-status event is published; the policy-status-consumer
 * turns it into a callback request (one Kafka transaction per batch); the callback-sender signs
 * it (HMAC_SHA256) and POSTs it; the partner's receiver answers 200. Latency is the time from
 * when the event was due to be published to when its callback arrived (same machine clock),
 * at a fixed offered rate.
 *
 *   npm run bench:outbound-e2e      (starts a throwaway local stack around it)
 *
 * Both services run as child processes from their compiled dist/main.js, logging at warn; the
 * receiver is a bare node:http server in a child process of its own, so it shares an event loop
 * with neither the publisher nor the services.
 *
 * Env: BENCH_RATE (events/s, default 1000), BENCH_SECONDS (measured, default 30),
 * BENCH_WARMUP_SECONDS (published first at the same rate, not counted, default 60: the throwaway
 * broker's JVM and the services start cold, and over their first half-minute under load the
 * policy-status transactions' p99 was about 4 times its later value; a few seconds of warm-up
 * measure that, not the steady state. After 30 s the broker's C2 compiler still took 20 % of a
 * core over the next 10 s, on a machine ~75 % busy, and ≤ 7 % only from about 50 s on (perf)),
 * BENCH_TRACE=1 (splits the latency where callback requests become readable, with a child
 * reading callback-requests; adds load), BENCH_PROFILE=<dir> (both services write a V8 CPU
 * profile there when they stop), BENCH_SERVICE_NODE_ARGS (node flags for
 * both services, e.g. "--trace-gc-nvp"), BENCH_SERVICE_OUTPUT_DIR (each service's whole standard
 * output is copied to <name>.log there), BENCH_TIMELINE=1 (p99 and max per BENCH_TIMELINE_MS of
 * the window, default 1000, with the epoch it starts at). The services' own settings (e.g.
 * SENDER_PARTNER_CONCURRENCY) pass through from the environment.
 * Prints: offered and achieved rates, p50/p90/p99/max, callbacks received of those published,
 * the goal, the services' stage histograms over the window, and the CPU of each process.
 * Exits 0 when the goal is missed, 1 when the run itself fails.
 */
import { routeProcessWarnings } from '@hookstream/shared';
import { CallbackReceiver, CommitTracer } from './outbound/arrival-log';
import type { EventStream } from './outbound/event-stream';
import { FixedRatePublisher } from './outbound/fixed-rate-publisher';
import { describeLatency, describeStages, describeTimeline, fmtMs, streamFigures, summarise } from './outbound/latency-figures';
import { publishMeasured, waitForArrivals } from './outbound/measured-publish';
import { CALLBACK_PATH, prepareOutboundStack, startOutboundServices } from './outbound/outbound-stack';
import { describeEventLoopDelay, describeGcPauses, describeStageHistograms, stageHistograms } from './outbound/service-figures';
import { envNumber, runBench } from './support/bench-run';
import { counterSum } from './support/metrics-page';

const rate = envNumber('BENCH_RATE', 1000);
const seconds = envNumber('BENCH_SECONDS', 30);
const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 60, 0);
const trace = process.env.BENCH_TRACE === '1';
const timeline = process.env.BENCH_TIMELINE === '1';
const timelineBucketMs = envNumber('BENCH_TIMELINE_MS', 1000);

const GOAL_P99_MS = 100;
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
  try {
    const warmup: EventStream = { label: 'warmup', partnerId: PARTNER, rate, fromMs: 0, toMs: warmupSeconds * 1000 };
    const measured: EventStream = { label: 'e2e', partnerId: PARTNER, rate, fromMs: warmup.toMs, toMs: warmup.toMs + seconds * 1000 };
    console.log(
      `outbound end to end: policy-status → policy-status-consumer → callback-requests → callback-sender → receiver (HTTP 200); ` +
        `1 partner (HMAC_SHA256), 6 partitions, each event its own policy; Node ${process.versions.node}`,
    );
    console.log(`offered: ${rate} events/s for ${seconds} s after a ${warmupSeconds} s warm-up at the same rate (not counted)`);

    const { report, atStart, cpuFigures } = await publishMeasured(
      publisher,
      [warmup, measured],
      { fromMs: measured.fromMs, partnerId: PARTNER },
      { consumer, sender, receiver, tracer },
    );
    const published = report.published.get(measured.label) ?? 0;
    const publishSeconds = (report.endedAt - (report.startedAt + measured.fromMs)) / 1000;
    await waitForArrivals(receiver, measured.label, published, STALL_MS, () => {
      consumer.checkAlive();
      sender.checkAlive();
    });
    const figures = streamFigures(receiver, report, measured);
    const before = atStart;
    const after = await stageHistograms(consumer, sender, PARTNER);

    console.log(
      `published ${published} events in ${publishSeconds.toFixed(1)} s: ${(published / publishSeconds).toFixed(0)}/s achieved of ${rate}/s offered ` +
        `(${report.sends} sends in all; send to acks=all ${describeLatency(summarise(report.sendMs))}; ` +
        `send start after the oldest event due: p99 ${fmtMs(summarise(report.lateness).p99)})`,
    );
    console.log(
      `received ${figures.received} of ${published} published` +
        (figures.received < published ? ` (MISSING ${published - figures.received}: none arrived for ${STALL_MS / 1000} s)` : '') +
        `; ${figures.deliveredPerSecond.toFixed(0)} callbacks/s achieved at the receiver; repeats ${receiver.repeats}`,
    );
    console.log(`end-to-end latency (due → callback received): ${describeLatency(figures.latency)}`);
    console.log(
      `goal: p99 ${fmtMs(figures.latency.p99)} ${figures.latency.p99 <= GOAL_P99_MS ? 'meets' : 'MISSES'} p99 ≤ ${GOAL_P99_MS} ms at ${rate}/s`,
    );
    console.log(
      `services over the measured window: ${describeStageHistograms(before, after)}; ` +
        `sender attempts since its start (warm-up too): delivered ${counterSum(after.senderMetrics, 'hookstream_callback_attempts_total', 'outcome="delivered"')}, ` +
        `failed ${counterSum(after.senderMetrics, 'hookstream_callback_attempts_total', 'outcome="failed"')}`,
    );
    console.log(`event-loop delay over the measured window: ${describeEventLoopDelay(after)}`);
    console.log(`GC pauses over the measured window: ${describeGcPauses(before, after)}`);
    if (tracer) {
      await tracer.collect();
      console.log(`stages (measured events): ${describeStages(tracer, receiver, measured.label)}`);
    }
    console.log(`CPU over the measured window: ${cpuFigures}`);
    if (timeline) console.log(`timeline (ms): ${describeTimeline(receiver, report, measured, timelineBucketMs, tracer)}`);
  } finally {
    await publisher.disconnect().catch(() => undefined);
    await Promise.all([consumer.stop(), sender.stop()]);
  }
}

runBench(main, ((warmupSeconds + seconds) * 2 + 300) * 1000);
