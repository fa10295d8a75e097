/*
 * The last day hour by hour: 24 slots, the current hour last, with a bar in each hour that had
 * requests whose height is the share answered 200 (red below 100 %), and the p95 latency as a line
 * on its own scale. Plain SVG: 24 bars need no chart library. The SVG is one image with a title for a screen reader; its figures are in a
 * table beside it, visually hidden, which a screen reader reads row by row.
 */
import { useId } from 'preact/hooks';
import { ms, percent } from '../format';

export interface HourBucket {
  hour: string;
  sends: number;
  delivered: number;
  p95_latency_ms: number | null;
}

const W = 720;
const H = 176;
const PAD = 24;
const HOUR_MS = 3_600_000;
/** The day's hours, each a slot whether it had requests or not, so that a gap shows as one. */
const SLOTS = 24;

const hourOf = (h: HourBucket) => new Date(h.hour).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
const shareOf = (h: HourBucket) => (h.sends === 0 ? 0 : h.delivered / h.sends);

export function HourlyChart({ hours }: { hours: HourBucket[] }) {
  // One chart per endpoint on a page: each title needs an id of its own.
  const titleId = useId();
  if (hours.length === 0) return <p class="empty">No requests in the last day.</p>;
  const slot = (W - 2 * PAD) / SLOTS;
  // Buckets are UTC hour starts, as is this: the current hour is the last slot.
  const currentHour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  // The day asked for starts mid-hour, so a 25th hour may come back: the chart and its table leave it out alike.
  const placed = hours
    .map((h) => ({ h, index: SLOTS - 1 - Math.round((currentHour - Date.parse(h.hour)) / HOUR_MS) }))
    .filter(({ index }) => index >= 0 && index < SLOTS);
  const maxLatency = Math.max(1, ...hours.map((h) => h.p95_latency_ms ?? 0));
  const y = (share: number) => H - 2 * PAD - share * (H - 3 * PAD);
  const latencyPoints = placed
    .map(({ h, index }) => (h.p95_latency_ms === null ? null : `${PAD + slot * (index + 0.5)},${y(h.p95_latency_ms / maxLatency)}`))
    .filter(Boolean)
    .join(' ');
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={titleId}>
        <title id={titleId}>Success rate (bars) and p95 latency (line) per hour over the last day</title>
        <line x1={PAD} y1={y(0)} x2={W - PAD} y2={y(0)} class="axis" />
        <line x1={PAD} y1={y(1)} x2={W - PAD} y2={y(1)} class="grid" />
        {placed.map(({ h, index }) => {
          const share = shareOf(h);
          return (
            <rect
              key={h.hour}
              x={PAD + slot * index + 1}
              y={y(share)}
              width={Math.max(1, slot - 2)}
              height={y(0) - y(share)}
              class={share < 1 ? 'bar bar-bad' : 'bar'}
            >
              <title>
                {hourOf(h)}: {percent(share)} of {h.sends}, p95 {ms(h.p95_latency_ms)}
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
        <text x={PAD} y={H - PAD} class="label">
          24 h ago
        </text>
        <text x={W - PAD} y={H - PAD} class="label end">
          this hour
        </text>
      </svg>
      <HourTable hours={placed.map(({ h }) => h)} />
      <figcaption class="muted">Bars: share answered 200 each hour. Line: p95 latency.</figcaption>
    </figure>
  );
}

/** The chart's figures as a table, for screen readers only. */
function HourTable({ hours }: { hours: HourBucket[] }) {
  return (
    <div class="visually-hidden">
      <table>
        <caption>Requests per hour over the last day</caption>
        <thead>
          <tr>
            <th scope="col">Hour</th>
            <th scope="col">Requests</th>
            <th scope="col">Answered 200</th>
            <th scope="col">p95 latency</th>
          </tr>
        </thead>
        <tbody>
          {hours.map((h) => (
            <tr key={h.hour}>
              <th scope="row">{hourOf(h)}</th>
              <td>{h.sends}</td>
              <td>{h.sends === 0 ? '–' : percent(shareOf(h))}</td>
              <td>{ms(h.p95_latency_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
