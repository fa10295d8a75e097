/*
 * The last day hour by hour: a bar per hour whose height is the share of requests answered 200
 * (red below 100 %), and the p95 latency as a line on its own scale. Plain SVG: 24 bars need no
 * chart library, and an SVG with a title and a table fallback stays readable by screen readers.
 */
import { ms, percent } from '../format';

export interface HourBucket {
  hour: string;
  sends: number;
  delivered: number;
  p95_latency_ms: number | null;
}

const W = 720;
const H = 160;
const PAD = 24;

export function HourlyChart({ hours }: { hours: HourBucket[] }) {
  if (hours.length === 0) return <p class="empty">No requests in the last day.</p>;
  const slot = (W - 2 * PAD) / hours.length;
  const maxLatency = Math.max(1, ...hours.map((h) => h.p95_latency_ms ?? 0));
  const y = (share: number) => H - PAD - share * (H - 2 * PAD);
  const latencyPoints = hours
    .map((h, i) => (h.p95_latency_ms === null ? null : `${PAD + slot * (i + 0.5)},${y(h.p95_latency_ms / maxLatency)}`))
    .filter(Boolean)
    .join(' ');
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="chart-title">
        <title id="chart-title">Success rate (bars) and p95 latency (line) per hour over the last day</title>
        <line x1={PAD} y1={y(0)} x2={W - PAD} y2={y(0)} class="axis" />
        <line x1={PAD} y1={y(1)} x2={W - PAD} y2={y(1)} class="grid" />
        {hours.map((h, i) => {
          const share = h.sends === 0 ? 0 : h.delivered / h.sends;
          return (
            <rect
              key={h.hour}
              x={PAD + slot * i + 1}
              y={y(share)}
              width={Math.max(1, slot - 2)}
              height={y(0) - y(share)}
              class={share < 1 ? 'bar bar-bad' : 'bar'}
            >
              <title>
                {new Date(h.hour).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}: {percent(share)} of {h.sends}, p95{' '}
                {ms(h.p95_latency_ms)}
              </title>
            </rect>
          );
        })}
        {latencyPoints && <polyline points={latencyPoints} class="latency" />}
        <text x={PAD} y={PAD - 8} class="label">
          100 %
        </text>
        <text x={W - PAD} y={PAD - 8} class="label end">
          p95 max {ms(maxLatency)}
        </text>
      </svg>
      <figcaption class="muted">Bars: share answered 200 each hour. Line: p95 latency.</figcaption>
    </figure>
  );
}
