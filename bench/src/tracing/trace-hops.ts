/*
 * Where a callback's milliseconds go, from its trace as Jaeger keeps it (docs/tracing.md): for each
 * trace holding a delivered first attempt, the fan-out (policy.fan_out), the time from the fan-out's
 * end to the sender's read of the callback request (the fan-out's transaction commit, the hop
 * across callback-requests and the sender's poll), the sender's own time before the attempt, the
 * attempt apart from its HTTP request (signing, the ordering check), and the HTTP round trip.
 */
import { markdownTable } from '../support/markdown-table';
import { quantile } from '../support/samples';

interface Span {
  operationName: string;
  startTime: number;
  duration: number;
  tags: Array<{ key: string; value: unknown }>;
}

/** The hops, in the order a callback crosses them, each a function of its trace's spans (µs). */
const HOPS: Array<[string, (s: Record<string, Span>) => number]> = [
  ['policy.fan_out (the consumer)', (s) => s.fanOut!.duration],
  [
    'fan-out end → sender reads it (commit, callback-requests, poll)',
    (s) => s.read!.startTime - (s.fanOut!.startTime + s.fanOut!.duration),
  ],
  ['sender read → attempt starts', (s) => s.attempt!.startTime - s.read!.startTime],
  ['attempt apart from its HTTP request (signing, checks)', (s) => s.attempt!.duration - s.post!.duration],
  ['HTTP POST to the partner (loopback receiver)', (s) => s.post!.duration],
  ['fan-out start → attempt end (sum)', (s) => s.attempt!.startTime + s.attempt!.duration - s.fanOut!.startTime],
];

/** The per-hop table of the traces of callbacks delivered at their first attempt between `fromMs` and `toMs`. */
export async function traceHops(jaegerUrl: string, fromMs: number, toMs: number): Promise<{ traces: number; table: string }> {
  const url =
    `${jaegerUrl}/api/traces?service=callback-sender&operation=callback.attempt&limit=5000` +
    `&start=${Math.floor(fromMs * 1000)}&end=${Math.ceil(toMs * 1000)}`;
  const found = (await (await fetch(url)).json()) as { data: Array<{ spans: Span[] }> };
  const measured = found.data.flatMap(({ spans }) => {
    const byName = (name: string) => spans.find((span) => span.operationName === name);
    const attempt = byName('callback.attempt');
    const chosen = {
      fanOut: byName('policy.fan_out'),
      read: spans.find((span) => span.operationName.endsWith('callback-requests')),
      attempt,
      post: byName('POST'),
    };
    const tag = (key: string) => attempt?.tags.find((t) => t.key === key)?.value;
    const whole = Object.values(chosen).every((span) => span !== undefined);
    return whole && tag('hookstream.attempt') === 1 && tag('hookstream.outcome') === 'delivered' ? [chosen as Record<string, Span>] : [];
  });
  const ms = (us: number) => `${(us / 1000).toFixed(2)} ms`;
  const rows = HOPS.map(([name, of]) => {
    const values = measured.map(of);
    return [name, ms(quantile(values, 0.5)), ms(quantile(values, 0.9)), ms(quantile(values, 0.99))];
  });
  return { traces: measured.length, table: markdownTable(['hop', 'p50', 'p90', 'p99'], rows) };
}
