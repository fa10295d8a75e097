/**
 * The per-hop table (bench/src/tracing/trace-hops.ts) from traces as Jaeger's query API gives them:
 * each hop measured between the right spans, and traces of retried or failed callbacks left out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { traceHops } from '../../src/tracing/trace-hops';

const span = (operationName: string, startTime: number, duration: number, tags: Record<string, unknown> = {}) => ({
  operationName,
  startTime,
  duration,
  tags: Object.entries(tags).map(([key, value]) => ({ key, value })),
});
/** A callback's trace: fan-out 0–2 ms, read at 5 ms, attempt 6–10 ms with its POST 7–9 ms (µs). */
const trace = (attempt: number, outcome: string) => ({
  spans: [
    span('policy.fan_out', 0, 2000),
    span('process p.callback-requests', 5000, 6000),
    span('callback.attempt', 6000, 4000, { 'hookstream.attempt': attempt, 'hookstream.outcome': outcome }),
    span('POST', 7000, 2000),
  ],
});

let server: Server;
let url: string;
let asked: string | undefined;
beforeAll(async () => {
  server = createServer((req, res) => {
    asked = req.url;
    res.end(JSON.stringify({ data: [trace(1, 'delivered'), trace(2, 'delivered'), trace(1, 'retry')] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

test('each hop is measured between its spans, over the first attempts that delivered only', async () => {
  const { traces, table } = await traceHops(url, 1_000, 2_000);
  expect(asked).toContain('service=callback-sender&operation=callback.attempt');
  expect(asked).toContain('start=1000000&end=2000000');
  expect(traces).toBe(1);
  const row = (hop: string) => table.split('\n').find((line) => line.includes(hop))!;
  expect(row('policy.fan_out')).toContain('2.00 ms');
  expect(row('fan-out end → sender reads it')).toContain('3.00 ms');
  expect(row('sender read → attempt starts')).toContain('1.00 ms');
  expect(row('attempt apart from its HTTP request')).toContain('2.00 ms');
  expect(row('HTTP POST')).toContain('2.00 ms');
  expect(row('fan-out start → attempt end')).toContain('10.00 ms');
});
