/**
 * bench:tracing-ingress's figures: one row per setting and round (accepted webhooks, latency, each
 * process's share of a core, the ingress's CPU per webhook, the system's per 1,000), and a round's
 * ratios against tracing off with the goal for 10 %: at most 5 % more system CPU per
 * accepted webhook and no worse p99.
 */
import type autocannon from 'autocannon';
import { markdownTable } from '../support/markdown-table';

/** Goal: system CPU per accepted webhook at 10 % sampling at most this many times that with tracing off. */
export const GOAL_CPU_RATIO_AT_10 = 1.05;

/**
 * A window that accepted less than this share of the webhooks offered did not keep up: its
 * latency is queueing and its CPU that of another load, so its ratios compare unlike with unlike.
 * (autocannon stops with up to one request per connection unanswered, well within 1 %.)
 */
export const SATURATED_BELOW = 0.97;

/** The processes whose CPU sums to the system's cost (Jaeger and the bench's load tool are not in it). */
export const SYSTEM_PROCESSES = ['ingress', 'broker', 'registry', 'postgres'] as const;

/** One setting's measured window in one round. */
export interface IngressRow {
  setting: string;
  round: number;
  /** Webhooks offered: the rate × the window's seconds (autocannon's own count of requests sent is not that: it adds a second's worth at a fixed rate). */
  offered: number;
  result: Pick<autocannon.Result, '2xx' | 'latency'>;
  /** The window's length, s. */
  seconds: number;
  /** CPU seconds of each process over the window (ingress, broker, registry, postgres, jaeger); undefined where unknown. */
  cpuSeconds: Record<string, number | undefined>;
}

/** CPU seconds of the system per 1,000 accepted webhooks; undefined when a process's CPU is unknown or none was accepted. */
export function systemCpuPer1000(row: IngressRow): number | undefined {
  const used = SYSTEM_PROCESSES.map((name) => row.cpuSeconds[name]);
  if (row.result['2xx'] === 0 || !used.every((s): s is number => s !== undefined)) return undefined;
  return (used.reduce((sum, s) => sum + s, 0) / row.result['2xx']) * 1000;
}

/** The ingress's own CPU per accepted webhook, µs. */
export function ingressCpuPerWebhookUs(row: IngressRow): number | undefined {
  const used = row.cpuSeconds.ingress;
  return used === undefined || row.result['2xx'] === 0 ? undefined : (used / row.result['2xx']) * 1e6;
}

const percentOfCore = (row: IngressRow, name: string) => {
  const used = row.cpuSeconds[name];
  return used === undefined || row.seconds <= 0 ? 'n/a' : `${((used / row.seconds) * 100).toFixed(1)} %`;
};

export function ingressTracingTable(rows: IngressRow[]): string {
  return markdownTable(
    [
      'tracing',
      'round',
      'accepted',
      'accepted/s',
      'p50',
      'p99',
      'ingress',
      'ingress per webhook',
      'broker',
      'registry',
      'PostgreSQL',
      'Jaeger',
      'system CPU per 1,000',
    ],
    rows.map((row) => {
      const perWebhook = ingressCpuPerWebhookUs(row);
      const system = systemCpuPer1000(row);
      return [
        row.setting,
        String(row.round),
        `${row.result['2xx']} of ${row.offered}`,
        (row.result['2xx'] / row.seconds).toFixed(0),
        `${row.result.latency.p50} ms`,
        `${row.result.latency.p99} ms`,
        percentOfCore(row, 'ingress'),
        perWebhook === undefined ? 'n/a' : `${perWebhook.toFixed(0)} µs`,
        percentOfCore(row, 'broker'),
        percentOfCore(row, 'registry'),
        percentOfCore(row, 'postgres'),
        percentOfCore(row, 'jaeger'),
        system === undefined ? 'n/a' : `${system.toFixed(2)} s`,
      ];
    }),
  );
}

const ratio = (of: number | undefined, base: number | undefined) =>
  of === undefined || base === undefined || base === 0 ? undefined : of / base;
const times = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(2)}×`);

/** Round `round`'s 10 % and 100 % against its tracing off, one line each, the goal judged on the 10 % line. */
export function lastRoundRatios(rows: IngressRow[], round: number): string {
  const of = (setting: string) => rows.find((row) => row.round === round && row.setting === setting);
  const off = of('off');
  if (!off) return `n/a (round ${round} has no row with tracing off)`;
  return ['10 %', '100 %']
    .flatMap((setting) => {
      const row = of(setting);
      if (!row) return [];
      const cpu = ratio(systemCpuPer1000(row), systemCpuPer1000(off));
      const p99 = ratio(row.result.latency.p99, off.result.latency.p99);
      const figures =
        `${setting}: system CPU per webhook ${times(cpu)}, ingress CPU per webhook ` +
        `${times(ratio(ingressCpuPerWebhookUs(row), ingressCpuPerWebhookUs(off)))}, p99 ${times(p99)} ` +
        `(${row.result.latency.p99} ms against ${off.result.latency.p99} ms)`;
      const saturated = [off, row].filter((r) => r.result['2xx'] < SATURATED_BELOW * r.offered).map((r) => r.setting);
      const caveat = saturated.length > 0 ? ` [${saturated.join(' and ')} did not keep up with the rate offered: not comparable]` : '';
      if (setting !== '10 %') return [`${figures}${caveat}`];
      const meets = cpu !== undefined && cpu <= GOAL_CPU_RATIO_AT_10 && row.result.latency.p99 <= off.result.latency.p99;
      return [`${figures}: ${meets ? 'meets' : 'MISSES'} (goal: CPU ≤ ${GOAL_CPU_RATIO_AT_10}×, p99 no worse)${caveat}`];
    })
    .join('\n');
}
