/**
 * What the outbound services say about a measured window, from their /metrics pages scraped at
 * its start and its end: the policy-status transactions' and one partner's attempts' durations,
 * the event-loop delay, the garbage-collection pauses and the Kafka requests.
 */
import { bucketQuantile, bucketsBetween, counterSum, histogramBuckets, type Buckets } from '../support/metrics-page';
import type { ServiceProcess } from '../support/service-process';
import { fmtMs } from './latency-figures';

/** The services' stage histograms at one moment: the policy-status transactions, and one partner's attempts. */
export interface StageHistograms {
  /** When the pages were scraped (ms since the epoch). */
  at: number;
  transaction: Buckets;
  attempt: Buckets;
  senderMetrics: string;
  consumerMetrics: string;
}

export async function stageHistograms(consumer: ServiceProcess, sender: ServiceProcess, partnerId: string): Promise<StageHistograms> {
  const [consumerMetrics, senderMetrics] = await Promise.all([consumer.metrics(), sender.metrics()]);
  return {
    at: Date.now(),
    transaction: histogramBuckets(consumerMetrics, 'hookstream_policy_status_transaction_duration_seconds'),
    attempt: histogramBuckets(senderMetrics, 'hookstream_callback_attempt_duration_seconds', `partner="${partnerId}"`),
    senderMetrics,
    consumerMetrics,
  };
}

/** What the services observed between two snapshots. */
export function describeStageHistograms(before: StageHistograms, after: StageHistograms): string {
  return (
    `policy-status transaction (one per batch and partition) ${describeBuckets(bucketsBetween(before.transaction, after.transaction))}; ` +
    `sender attempt (POST to response) ${describeBuckets(bucketsBetween(before.attempt, after.attempt))}`
  );
}

/**
 * Each service's event-loop delay since its previous scrape (prom-client's default metrics reset
 * their histogram on every scrape, so the snapshot at a window's end covers the window).
 */
export function describeEventLoopDelay(after: StageHistograms): string {
  const delay = (metrics: string) => {
    const ms = (name: string) => fmtMs(counterSum(metrics, `nodejs_eventloop_lag_${name}_seconds`) * 1000);
    return `p50 ${ms('p50')}, p99 ${ms('p99')}, max ${ms('max')}`;
  };
  return `policy-status-consumer ${delay(after.consumerMetrics)}; callback-sender ${delay(after.senderMetrics)}`;
}

/**
 * Each service's garbage-collection pauses between two scrapes (prom-client's
 * nodejs_gc_duration_seconds): the total, and how many lasted 10 ms or more, per kind of GC.
 */
export function describeGcPauses(before: StageHistograms, after: StageHistograms): string {
  const pauses = (earlier: string, later: string) =>
    ['minor', 'major', 'incremental']
      .map((kind) => {
        const match = `kind="${kind}"`;
        const total =
          counterSum(later, 'nodejs_gc_duration_seconds_sum', match) - counterSum(earlier, 'nodejs_gc_duration_seconds_sum', match);
        const buckets = bucketsBetween(
          histogramBuckets(earlier, 'nodejs_gc_duration_seconds', match),
          histogramBuckets(later, 'nodejs_gc_duration_seconds', match),
        );
        const all = buckets[buckets.length - 1]?.[1] ?? 0;
        const under10ms = buckets.find(([bound]) => bound >= 0.01)?.[1] ?? all;
        return `${kind} ${all} (${fmtMs(total * 1000)} in all, ${all - under10ms} ≥ 10 ms)`;
      })
      .join(', ');
  return `policy-status-consumer ${pauses(before.consumerMetrics, after.consumerMetrics)}; callback-sender ${pauses(before.senderMetrics, after.senderMetrics)}`;
}

/**
 * Each service's Kafka requests per second between two scrapes, by API, busiest first
 * (`hookstream_kafka_requests_total`): what the window's events cost the broker in requests.
 */
export function describeKafkaRequests(before: StageHistograms, after: StageHistograms): string {
  const seconds = (after.at - before.at) / 1000;
  const perSecond = (earlier: string, later: string) => {
    const apis = new Set([...later.matchAll(/^hookstream_kafka_requests_total\{[^}]*api="([^"]+)"/gm)].map((m) => m[1]!));
    const rates = [...apis].map((api) => {
      const match = `api="${api}"`;
      const count =
        counterSum(later, 'hookstream_kafka_requests_total', match) - counterSum(earlier, 'hookstream_kafka_requests_total', match);
      return { api, rate: count / seconds };
    });
    return rates
      .filter(({ rate }) => rate >= 0.1)
      .sort((a, b) => b.rate - a.rate)
      .map(({ api, rate }) => `${api} ${rate.toFixed(1)}`)
      .join(', ');
  };
  return (
    `policy-status-consumer ${perSecond(before.consumerMetrics, after.consumerMetrics)}; ` +
    `callback-sender ${perSecond(before.senderMetrics, after.senderMetrics)}`
  );
}

/** "p50 x ms, p99 y ms (n)" of histogram buckets in seconds. */
function describeBuckets(buckets: Buckets): string {
  const q = (p: number) => {
    const s = bucketQuantile(buckets, p);
    return s === undefined ? 'n/a' : fmtMs(s * 1000);
  };
  return `p50 ${q(0.5)}, p99 ${q(0.99)} (${buckets[buckets.length - 1]?.[1] ?? 0} observed)`;
}
