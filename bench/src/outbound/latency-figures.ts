/**
 * The outbound benches' end-to-end figures, from what the receiver (and the tracer) noted: each
 * stream's latency percentiles and delivered rate, its latency second by second, and where its
 * time went.
 */
import type { CallbackReceiver, CommitTracer } from './arrival-log';
import { parsePolicyNumber, type EventStream, type PublishReport } from './event-stream';

/** Latency figures of a set of samples (ms). */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarise(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

export const fmtMs = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : 'n/a');

export function describeLatency(s: LatencySummary): string {
  return `p50 ${fmtMs(s.p50)}  p90 ${fmtMs(s.p90)}  p99 ${fmtMs(s.p99)}  max ${fmtMs(s.max)}`;
}

/** End-to-end figures of one stream. */
export interface StreamFigures {
  published: number;
  received: number;
  latency: LatencySummary;
  /** Callbacks received per second: the stream's callbacks over the time from its first due event to the last arrival. */
  deliveredPerSecond: number;
}

/** The callbacks of one stream that reached the receiver: when each was due and when it arrived. */
export function* arrivalsOf(
  receiver: CallbackReceiver,
  label: string,
): Generator<{ policyNumber: string; dueAt: number; arrivedAt: number }> {
  for (const [policyNumber, arrivedAt] of receiver.arrivals) {
    const parsed = parsePolicyNumber(policyNumber);
    if (parsed?.label === label) yield { policyNumber, dueAt: parsed.dueAt, arrivedAt };
  }
}

export function streamFigures(receiver: CallbackReceiver, report: PublishReport, stream: EventStream): StreamFigures {
  const fromAt = report.startedAt + stream.fromMs;
  const latencies: number[] = [];
  let lastArrival = fromAt;
  for (const { dueAt, arrivedAt } of arrivalsOf(receiver, stream.label)) {
    latencies.push(arrivedAt - dueAt);
    lastArrival = Math.max(lastArrival, arrivedAt);
  }
  return {
    published: report.published.get(stream.label) ?? 0,
    received: latencies.length,
    latency: summarise(latencies),
    deliveredPerSecond: lastArrival > fromAt ? latencies.length / ((lastArrival - fromAt) / 1000) : 0,
  };
}

/**
 * A stream's latency second by second of its due times (`+s p99 … max …`), so a tail can be
 * placed in time (the start of a phase, a burst of retries coming due) rather than guessed at.
 */
export function describeTimeline(
  receiver: CallbackReceiver,
  report: PublishReport,
  stream: EventStream,
  bucketMs = 1000,
  tracer?: CommitTracer,
): string {
  const fromAt = report.startedAt + stream.fromMs;
  const perBucket = new Map<number, { total: number[]; toCommitted: number[] }>();
  for (const { policyNumber, dueAt, arrivedAt } of arrivalsOf(receiver, stream.label)) {
    // Due times travel rounded to the µs, so the window's first event can read a hair before its start.
    const bucket = Math.max(0, Math.floor((dueAt - fromAt) / bucketMs));
    const figures = perBucket.get(bucket) ?? { total: [], toCommitted: [] };
    figures.total.push(arrivedAt - dueAt);
    const committedAt = tracer?.arrivals.get(policyNumber);
    if (committedAt !== undefined) figures.toCommitted.push(committedAt - dueAt);
    perBucket.set(bucket, figures);
  }
  const buckets = [...perBucket.keys()]
    .sort((a, b) => a - b)
    .map((bucket) => {
      const { total, toCommitted } = perBucket.get(bucket)!;
      const summary = summarise(total);
      const split = toCommitted.length > 0 ? ` (readable p99 ${summarise(toCommitted).p99.toFixed(0)})` : '';
      return `+${((bucket * bucketMs) / 1000).toString()}s p99 ${summary.p99.toFixed(0)} max ${summary.max.toFixed(0)}${split}`;
    })
    .join('; ');
  // The epoch lets other recordings (CPU samples, GC traces) be lined up with the buckets.
  return `from epoch ms ${fromAt.toFixed(0)}: ${buckets}`;
}

/**
 * Where a stream's time went: from due to readable on callback-requests (publish, the
 * policy-status-consumer and its transaction), and from there to the partner (the sender).
 */
export function describeStages(tracer: CommitTracer, receiver: CallbackReceiver, label: string): string {
  const toCommitted: number[] = [];
  const onward: number[] = [];
  for (const { policyNumber, dueAt, arrivedAt } of arrivalsOf(receiver, label)) {
    const committedAt = tracer.arrivals.get(policyNumber);
    if (committedAt === undefined) continue;
    toCommitted.push(committedAt - dueAt);
    onward.push(arrivedAt - committedAt);
  }
  return (
    `due → readable on callback-requests (read_committed): ${describeLatency(summarise(toCommitted))}; ` +
    `readable → callback received: ${describeLatency(summarise(onward))}`
  );
}
