/**
 * One offered rate of bench:outbound-e2e, on services already running: a warm-up at the rate (not
 * counted), the measured window, the wait for its callbacks; prints the rate's detailed figures
 * and gives its row of the sweep's summary.
 */
import { bucketsBetween, counterSum } from '../support/metrics-page';
import type { ServiceProcess } from '../support/service-process';
import type { CallbackReceiver, CommitTracer } from './arrival-log';
import type { EventStream } from './event-stream';
import type { FixedRatePublisher } from './fixed-rate-publisher';
import { describeLatency, describeStages, describeTimeline, fmtMs, streamFigures, summarise } from './latency-figures';
import { publishMeasured, waitForArrivals } from './measured-publish';
import { GOAL_P99_MS, latencyVerdict, type RateRow } from './rate-sweep';
import {
  describeEventLoopDelay,
  describeGcPauses,
  describeKafkaRequests,
  describeStageHistograms,
  stageHistograms,
} from './service-figures';

/** What every rate of a sweep runs on: one set of services and bench children for the whole run. */
export interface E2eRig {
  publisher: FixedRatePublisher;
  consumer: ServiceProcess;
  sender: ServiceProcess;
  receiver: CallbackReceiver;
  tracer: CommitTracer | undefined;
  partnerId: string;
}

export interface RateSettings {
  /** Events per second. */
  rate: number;
  /** Measured window, s. */
  seconds: number;
  /** Published first at the same rate and not counted, s. */
  warmupSeconds: number;
  /** After publishing, how long without a new callback before the missing ones are given up on, ms. */
  stallMs: number;
  /** Prints p99 and max per this many ms of the window; undefined: no timeline. */
  timelineBucketMs: number | undefined;
}

/** Measures one rate; `index` (the rate's place in the sweep) keeps its streams' labels apart from the other rates'. */
export async function measureRate(rig: E2eRig, settings: RateSettings, index: number): Promise<RateRow> {
  const { publisher, consumer, sender, receiver, tracer, partnerId } = rig;
  const { rate, seconds, warmupSeconds, stallMs } = settings;
  const warmup: EventStream = { label: `warmup${index}@${rate}`, partnerId, rate, fromMs: 0, toMs: warmupSeconds * 1000 };
  const measured: EventStream = { label: `e2e${index}@${rate}`, partnerId, rate, fromMs: warmup.toMs, toMs: warmup.toMs + seconds * 1000 };
  console.log(`\n— ${rate} events/s: ${seconds} s measured after a ${warmupSeconds} s warm-up at the same rate (not counted) —`);

  const { report, atStart, cpuFigures, cpuUsage } = await publishMeasured(
    publisher,
    [warmup, measured],
    { fromMs: measured.fromMs, partnerId },
    { consumer, sender, receiver, tracer },
  );
  const published = report.published.get(measured.label) ?? 0;
  const publishSeconds = (report.endedAt - (report.startedAt + measured.fromMs)) / 1000;
  await waitForArrivals(receiver, measured.label, published, stallMs, () => {
    consumer.checkAlive();
    sender.checkAlive();
  });
  const figures = streamFigures(receiver, report, measured);
  const after = await stageHistograms(consumer, sender, partnerId);
  const row: RateRow = {
    offered: rate,
    published,
    received: figures.received,
    latency: figures.latency,
    windowSeconds: cpuUsage.seconds,
    cpuSeconds: { consumer: cpuUsage.cpuSeconds.consumer, sender: cpuUsage.cpuSeconds.sender, broker: cpuUsage.cpuSeconds.broker },
    transactions: bucketsBetween(atStart.transaction, after.transaction).at(-1)?.[1] ?? 0,
  };

  console.log(
    `published ${published} events in ${publishSeconds.toFixed(1)} s: ${(published / publishSeconds).toFixed(0)}/s achieved of ${rate}/s offered ` +
      `(${report.sends} sends in all; send to acks=all ${describeLatency(summarise(report.sendMs))}; ` +
      `send start after the oldest event due: p99 ${fmtMs(summarise(report.lateness).p99)})`,
  );
  console.log(
    `received ${figures.received} of ${published} published` +
      (figures.received < published ? ` (MISSING ${published - figures.received}: none arrived for ${stallMs / 1000} s)` : '') +
      `; ${figures.deliveredPerSecond.toFixed(0)} callbacks/s achieved at the receiver; repeats so far ${receiver.repeats}`,
  );
  console.log(`end-to-end latency (due → callback received): ${describeLatency(figures.latency)}`);
  console.log(
    `goal: p99 ${fmtMs(figures.latency.p99)} ${latencyVerdict(row)} p99 ≤ ${GOAL_P99_MS} ms (every callback received) at ${rate}/s`,
  );
  console.log(
    `services over the measured window: ${describeStageHistograms(atStart, after)}; ` +
      `sender attempts since its start (warm-ups too): delivered ${counterSum(after.senderMetrics, 'hookstream_callback_attempts_total', 'outcome="delivered"')}, ` +
      `failed ${counterSum(after.senderMetrics, 'hookstream_callback_attempts_total', 'outcome="failed"')}`,
  );
  console.log(`event-loop delay over the measured window: ${describeEventLoopDelay(after)}`);
  console.log(`GC pauses over the measured window: ${describeGcPauses(atStart, after)}`);
  console.log(`Kafka requests per second over the measured window: ${describeKafkaRequests(atStart, after)}`);
  if (tracer) {
    await tracer.collect();
    console.log(`stages (measured events): ${describeStages(tracer, receiver, measured.label)}`);
  }
  console.log(`CPU over the measured window: ${cpuFigures}`);
  if (settings.timelineBucketMs !== undefined) {
    console.log(`timeline (ms): ${describeTimeline(receiver, report, measured, settings.timelineBucketMs, tracer)}`);
  }
  return row;
}
