/**
 * Repeated measurements one at a time: the first few run but are not counted (connections opened,
 * code compiled, caches warm), then each run's result is kept, so that the benches' quantiles
 * are of the steady state and computed one way.
 */
import { performance } from 'node:perf_hooks';

/** The q-quantile (0 to 1) of `values`, the nearest rank below; NaN when empty. */
export const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;

export const ms = (n: number): string => `${n.toFixed(1)} ms`;

/**
 * Runs `run` `warmup` times not counted (i from 0), then `count` times (i from 0 again); returns what
 * the counted runs returned, in order.
 */
export async function sampled<T>(count: number, run: (i: number) => Promise<T>, warmup = 50): Promise<T[]> {
  for (let i = 0; i < warmup; i++) await run(i);
  const results: T[] = [];
  for (let i = 0; i < count; i++) results.push(await run(i));
  return results;
}

/** How long `run` took (ms). */
export async function timeOf(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** How long each of `count` runs of `run` took (ms), after `warmup` not counted. */
export function timed(count: number, run: (i: number) => Promise<void>, warmup = 50): Promise<number[]> {
  return sampled(count, (i) => timeOf(() => run(i)), warmup);
}
