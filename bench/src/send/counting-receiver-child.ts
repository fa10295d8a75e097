/**
 * Child process (forked by CountingReceiver): outbound-send's partner, a bare node:http server
 * answering 200 at once, counting requests (and those without a signature) and noting when each
 * one ended, so that the sender's rate is measured where the partner sees it.
 */
import { createServer } from 'node:http';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ReceiverCommand, ReceiverListening, ReceiverReport } from './counting-receiver';

let times: number[] = [];
let unsigned = 0;
const server = createServer((req, res) => {
  if (req.headers['x-signature'] === undefined) unsigned++;
  req.resume();
  req.on('end', () => {
    times.push(performance.now());
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
  });
});
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'listening', url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` } satisfies ReceiverListening);
});
process.on('message', (command: ReceiverCommand) => {
  if (command.type === 'reset') {
    times = [];
    unsigned = 0;
  }
  const at = (fraction: number) => times[Math.min(times.length - 1, Math.floor(fraction * times.length))] ?? 0;
  const report: ReceiverReport = {
    type: 'report',
    count: times.length,
    unsigned,
    first: at(0),
    last: at(1),
    p5: command.type === 'report' ? at(0.05) : 0,
    p95: command.type === 'report' ? at(0.95) : 0,
  };
  process.send?.(report);
});
// The bench is gone (however it ended): so is the receiver.
process.on('disconnect', () => process.exit(0));
