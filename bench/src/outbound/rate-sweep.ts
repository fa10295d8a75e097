/**
 * The summary of an outbound-e2e sweep: one row per offered rate (latency, the goal, each
 * process's CPU and the system's CPU per 1,000 deliveries, policy-status transactions) and goal
 * 2's cost ratio between 200/s and 1,000/s.
 */
import { markdownTable } from '../support/markdown-table';
import { fmtMs, type LatencySummary } from './latency-figures';

/** Goal 1: end-to-end p99 at most this at every offered rate. */
export const GOAL_P99_MS = 100;
/** Goal 2: system CPU per delivery at the low rate at most this many times that at the high one. */
export const GOAL_COST_RATIO = 2;
export const COST_RATIO_RATES = { low: 200, high: 1000 } as const;

/** The processes whose CPU a row shows, and whose sum is the system's cost (the bench's own load tools are not). */
export const SYSTEM_PROCESSES = ['consumer', 'sender', 'broker'] as const;
type SystemProcess = (typeof SYSTEM_PROCESSES)[number];

/** What one offered rate's measured window gave. */
export interface RateRow {
  /** Events per second offered. */
  offered: number;
  published: number;
  /** Callbacks of the published events that arrived (repeats not counted). */
  received: number;
  latency: LatencySummary;
  /** The window's length, s (from its start to the last publish). */
  windowSeconds: number;
  /** CPU seconds over the window; undefined where the process was not found (e.g. a stack not started by the bench). */
  cpuSeconds: Partial<Record<SystemProcess, number>>;
  /** policy-status transactions observed by the consumer from the window's start until its last callback arrived. */
  transactions: number;
}

/** Goal 1 for one rate: every callback arrived and the p99 is within the goal. */
export function meetsLatencyGoal(row: RateRow): boolean {
  return row.received === row.published && row.latency.p99 <= GOAL_P99_MS;
}

export function latencyVerdict(row: RateRow): string {
  if (row.received < row.published) return `MISSES (${row.published - row.received} missing)`;
  return meetsLatencyGoal(row) ? 'meets' : 'MISSES';
}

/** CPU seconds of consumer, sender and broker per 1,000 callbacks received; undefined when one is unknown or none arrived. */
export function systemCpuPer1000(row: RateRow): number | undefined {
  const used = SYSTEM_PROCESSES.map((name) => row.cpuSeconds[name]);
  if (row.received === 0 || !used.every((s): s is number => s !== undefined)) return undefined;
  return (used.reduce((sum, s) => sum + s, 0) / row.received) * 1000;
}

/** Goal 2's ratio: system CPU per delivery at 200/s ÷ at 1,000/s (the first row of each); undefined unless both were measured. */
export function costRatio(rows: RateRow[]): number | undefined {
  const at = (rate: number) => {
    const row = rows.find((r) => r.offered === rate);
    return row && systemCpuPer1000(row);
  };
  const low = at(COST_RATIO_RATES.low);
  const high = at(COST_RATIO_RATES.high);
  return low === undefined || high === undefined || high === 0 ? undefined : low / high;
}

const count = (n: number) => n.toLocaleString('en-US');
const percentOfCore = (row: RateRow, name: SystemProcess) => {
  const used = row.cpuSeconds[name];
  return used === undefined || row.windowSeconds <= 0 ? 'n/a' : `${((used / row.windowSeconds) * 100).toFixed(0)} %`;
};

/** The sweep as one Markdown table, a row per rate in the order measured. */
export function sweepTable(rows: RateRow[]): string {
  const header = [
    'offered',
    'delivered',
    'p50',
    'p99',
    'max',
    `p99 ≤ ${GOAL_P99_MS} ms`,
    ...SYSTEM_PROCESSES,
    'system CPU per 1,000',
    'transactions',
    'events per transaction',
  ];
  return markdownTable(
    header,
    rows.map((row) => {
      const cpu = systemCpuPer1000(row);
      return [
        `${count(row.offered)}/s`,
        `${count(row.received)} of ${count(row.published)}`,
        fmtMs(row.latency.p50),
        fmtMs(row.latency.p99),
        fmtMs(row.latency.max),
        latencyVerdict(row),
        ...SYSTEM_PROCESSES.map((name) => percentOfCore(row, name)),
        cpu === undefined ? 'n/a' : `${cpu.toFixed(2)} s`,
        count(row.transactions),
        row.transactions > 0 ? (row.published / row.transactions).toFixed(1) : 'n/a',
      ];
    }),
  );
}

/** Goal 2's line, or undefined when the sweep lacks one of its two rates. */
export function describeCostRatio(rows: RateRow[]): string | undefined {
  const { low, high } = COST_RATIO_RATES;
  if (!rows.some((r) => r.offered === low) || !rows.some((r) => r.offered === high)) return undefined;
  const ratio = costRatio(rows);
  const verdict = ratio === undefined ? 'n/a (CPU not known)' : `${ratio.toFixed(2)}× ${ratio <= GOAL_COST_RATIO ? 'meets' : 'MISSES'}`;
  return `goal 2: system CPU per delivery at ${count(low)}/s ÷ at ${count(high)}/s: ${verdict} (goal ≤ ${GOAL_COST_RATIO}×)`;
}
