/**
 * Figures read from a service's /metrics page (Prometheus text format): a counter's sum, a
 * histogram's cumulative buckets, what was observed between two scrapes, and a quantile
 * interpolated as Prometheus's histogram_quantile does, so that the benches read the services'
 * own histograms the way a dashboard would.
 */

/** A histogram's buckets: upper bound (seconds, Infinity for +Inf) → cumulative count, by bound. */
export type Buckets = Array<[bound: number, count: number]>;

/** The sum of a counter's series whose labels include `match` (e.g. `outcome="delivered"`). */
export function counterSum(metrics: string, name: string, match = ''): number {
  let sum = 0;
  for (const m of metrics.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
    if ((m[1] ?? '').includes(match)) sum += Number(m[2]);
  }
  return sum;
}

/** Buckets of a histogram's series whose labels include `match` (all series when empty), summed. */
export function histogramBuckets(metrics: string, name: string, match = ''): Buckets {
  const buckets = new Map<number, number>();
  for (const m of metrics.matchAll(new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const labels = m[1] ?? '';
    const le = /le="([^"]+)"/.exec(labels)?.[1];
    if (le === undefined || !labels.includes(match)) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(m[2]));
  }
  return [...buckets.entries()].sort((a, b) => a[0] - b[0]);
}

/** Buckets of `after` minus those of `before`: what was observed in between. */
export function bucketsBetween(before: Buckets, after: Buckets): Buckets {
  const earlier = new Map(before);
  return after.map(([bound, count]) => [bound, count - (earlier.get(bound) ?? 0)]);
}

/** A quantile of cumulative buckets, interpolated within its bucket as Prometheus does (seconds); undefined when empty. */
export function bucketQuantile(buckets: Buckets, q: number): number | undefined {
  const total = buckets[buckets.length - 1]?.[1] ?? 0;
  if (total === 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) return bound === Infinity ? lower : lower + ((bound - lower) * (rank - below)) / Math.max(1, count - below);
    lower = bound;
    below = count;
  }
  return undefined;
}
