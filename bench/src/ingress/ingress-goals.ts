/**
 * Issue 20's ingress goals, from one run's phases: the ingress's own CPU per accepted webhook
 * against the bare route's, and its throughput against the durable floor's (the least any durable
 * ingress must do), each measured with the same connections and load.
 */

/** Goal: the ingress's CPU per accepted webhook at most this many times the bare route's. */
export const GOAL_CPU_RATIO = 1.5;
/** Goal: the ingress's throughput at least this share of the durable floor's. */
export const GOAL_THROUGHPUT_SHARE = 0.6;

/** One phase's figures: 2xx answers per second, and the process's own CPU per 2xx (µs; undefined when unknown). */
export interface PhaseFigures {
  perSecond: number;
  cpuPerRequestUs: number | undefined;
}

const us = (value: number) => `${value.toFixed(0)} µs`;
const perSecond = (value: number) => `${Math.round(value).toLocaleString('en-US')} req/s`;

/** The cost goal's line: ingress CPU per accepted webhook ÷ the bare route's per request. */
export function describeCpuGoal(ingress: PhaseFigures, bare: PhaseFigures): string {
  const prefix = "goal (cost): ingress CPU per accepted webhook ÷ the bare route's per request";
  if (ingress.cpuPerRequestUs === undefined || bare.cpuPerRequestUs === undefined || bare.cpuPerRequestUs === 0) {
    return `${prefix}: n/a (CPU not known) (goal ≤ ${GOAL_CPU_RATIO}×)`;
  }
  const ratio = ingress.cpuPerRequestUs / bare.cpuPerRequestUs;
  return (
    `${prefix}: ${us(ingress.cpuPerRequestUs)} ÷ ${us(bare.cpuPerRequestUs)} = ${ratio.toFixed(2)}× ` +
    `${ratio <= GOAL_CPU_RATIO ? 'meets' : 'MISSES'} (goal ≤ ${GOAL_CPU_RATIO}×)`
  );
}

/** The throughput goal's line: ingress accepted webhooks per second ÷ the durable floor's. */
export function describeThroughputGoal(ingress: PhaseFigures, floor: PhaseFigures): string {
  const prefix = 'goal (throughput): ingress ÷ durable floor';
  const goal = `(goal ≥ ${(GOAL_THROUGHPUT_SHARE * 100).toFixed(0)} %)`;
  if (floor.perSecond <= 0) return `${prefix}: n/a (the durable floor answered no 2xx) ${goal}`;
  const share = ingress.perSecond / floor.perSecond;
  return (
    `${prefix}: ${perSecond(ingress.perSecond)} ÷ ${perSecond(floor.perSecond)} = ${(share * 100).toFixed(0)} % ` +
    `${share >= GOAL_THROUGHPUT_SHARE ? 'meets' : 'MISSES'} ${goal}`
  );
}
