/**
 * Child process (forked by CallbackReceiver in arrival-log.ts): the partners' side of the outbound
 * benches, in a process of its own so that it shares an event loop with neither the publisher nor
 * the services. Three partners: one answering 200 at once; a black hole that never answers; and
 * one that is a black hole until the epoch ms in its path (`/down-until-<ms>/…`), then answers 200.
 * It notes when each callback arrived, by the policy number in its body.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type net from 'node:net';
import { DOWN_UNTIL, serveReceipts, type ArrivalReport, type Receipt, type ReceiverHello } from './arrival-protocol';
import { epochMs } from './event-stream';

const POLICY_NUMBER = /"policy_number":"([^"]+)"/;

let receipts: Receipt[] = [];
let blackHoled = 0;

function answer(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const receivedAt = epochMs();
    const policyNumber = POLICY_NUMBER.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '';
    receipts.push([policyNumber, receivedAt]);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
  });
}

const answering = createServer(answer);
answering.keepAliveTimeout = 120_000;
// Accepts the connection and the request, and never answers: the sender's timeout ends each attempt.
const blackHole = createServer((req) => {
  blackHoled++;
  req.resume();
});
const recovering = createServer((req, res) => {
  const downUntil = Number(DOWN_UNTIL.exec(req.url ?? '')?.[1] ?? 0);
  if (Date.now() < downUntil) req.resume();
  else answer(req, res);
});
recovering.keepAliveTimeout = 120_000;

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`)),
  );
void Promise.all([listen(answering), listen(blackHole), listen(recovering)]).then(([answeringUrl, blackHoleUrl, recoveringUrl]) =>
  process.send?.({ answeringUrl, blackHoleUrl, recoveringUrl } satisfies ReceiverHello),
);
serveReceipts(() => {
  const report: ArrivalReport = { type: 'receipts', receipts, blackHoled };
  receipts = [];
  return report;
});
