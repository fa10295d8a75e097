/**
 * The bench's side of outbound-send's receiver (counting-receiver-child.ts): a bare node:http
 * server answering 200 in a child process of its own, so that it shares an event loop with
 * neither the raw loop nor the sender. It counts requests and the time each one ended, and
 * answers one command at a time over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { trackChild } from '../support/bench-run';

/** What the bench asks the receiver: start counting afresh, how many so far, or the full report. */
export type ReceiverCommand = { type: 'reset' } | { type: 'count' } | { type: 'report' };

/** What the receiver answers: requests since the last reset, and when the ranked ones arrived (ms, the receiver's clock). */
export interface ReceiverReport {
  type: 'report';
  count: number;
  unsigned: number;
  first: number;
  last: number;
  /** Only in answer to `report` (0 otherwise). */
  p5: number;
  p95: number;
}

/** The receiver's first message. */
export interface ReceiverListening {
  type: 'listening';
  url: string;
}

export class CountingReceiver {
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static start(): Promise<CountingReceiver> {
    const script = path.join(__dirname, 'counting-receiver-child.js');
    const child = fork(script, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    trackChild(child);
    return new Promise((resolve, reject) => {
      child.once('message', (m: ReceiverListening) => resolve(new CountingReceiver(child, m.url)));
      child.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    });
  }

  ask(type: ReceiverCommand['type']): Promise<ReceiverReport> {
    return new Promise((resolve) => {
      this.child.once('message', (m: ReceiverReport) => resolve(m));
      this.child.send({ type });
    });
  }
}
