/**
 * The bench's side of the children that note when each policy number arrived somewhere: the
 * callback receiver (the partners' side) and the commit tracer (a callback request became
 * readable on callback-requests). Each keeps the first arrival of every policy number.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TopicNames } from '@hookstream/kafka';
import { trackChild } from '../support/bench-run';
import { downUntilPath, type ArrivalCommand, type ArrivalReport, type ReceiverHello, type TracerJoined } from './arrival-protocol';
import { parsePolicyNumber } from './event-stream';
import type { OutboundStack } from './outbound-stack';

/** The bench's side of a child that notes arrivals: the first arrival of each policy number. */
class ArrivalLog {
  /** First arrival of each policy number (a repeat keeps the first). */
  readonly arrivals = new Map<string, number>();
  /** Distinct arrivals per stream label. */
  readonly arrivedPerLabel = new Map<string, number>();
  /** Arrivals of a policy number seen before (at least once: a repeat carries the same policy number). */
  repeats = 0;
  blackHoled = 0;
  private collecting = Promise.resolve();

  protected constructor(
    readonly child: ChildProcess,
    /** The child's role and arguments, to name it when it fails. */
    private readonly description: string,
  ) {}

  /** Forks `<role>-child.js` (of this folder) with `args` and waits for its first message. */
  protected static fork<T>(role: string, args: string[]): Promise<{ child: ChildProcess; hello: T; description: string }> {
    const child = fork(path.join(__dirname, `${role}-child.js`), args, { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    trackChild(child);
    return new Promise((resolve, reject) => {
      child.once('message', (hello: T) => resolve({ child, hello, description: [role, ...args].join(' ') }));
      child.once('exit', (code) => reject(new Error(`the ${role} exited with ${code}`)));
    });
  }

  /** Collects what arrived since the last call (calls are served one after another). */
  collect(): Promise<void> {
    this.collecting = this.collecting.then(() => this.take());
    return this.collecting;
  }

  private take(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`a child of the bench (${this.description}) exited with ${code}`));
      if (this.child.exitCode !== null || this.child.signalCode !== null) return onExit(this.child.exitCode);
      const onMessage = (m: ArrivalReport | TracerJoined) => {
        if (!('type' in m)) return; // e.g. the tracer's consumer joining its group again
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        for (const [policyNumber, at] of m.receipts) {
          if (this.arrivals.has(policyNumber)) {
            this.repeats++;
            continue;
          }
          this.arrivals.set(policyNumber, at);
          const label = parsePolicyNumber(policyNumber)?.label ?? '';
          this.arrivedPerLabel.set(label, (this.arrivedPerLabel.get(label) ?? 0) + 1);
        }
        this.blackHoled = m.blackHoled;
        resolve();
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send({ type: 'take' } satisfies ArrivalCommand);
    });
  }
}

/** The partner's side, in a child process of its own (receiver-child.ts): callbacks and when they arrived. */
export class CallbackReceiver extends ArrivalLog {
  private constructor(
    child: ChildProcess,
    description: string,
    /** Answers every callback 200 at once. */
    readonly answeringUrl: string,
    /** Accepts callbacks and never answers. */
    readonly blackHoleUrl: string,
    private readonly recoveringUrl: string,
  ) {
    super(child, description);
  }

  static async start(): Promise<CallbackReceiver> {
    const { child, hello, description } = await ArrivalLog.fork<ReceiverHello>('receiver', []);
    return new CallbackReceiver(child, description, hello.answeringUrl, hello.blackHoleUrl, hello.recoveringUrl);
  }

  /** A base URL that accepts callbacks and never answers until `epochMs`, then answers 200 at once. */
  downUntilUrl(epochMs: number): string {
    return `${this.recoveringUrl}${downUntilPath(epochMs)}`;
  }
}

/** When each callback request became readable on callback-requests (read_committed), from a child process (tracer-child.ts). */
export class CommitTracer extends ArrivalLog {
  static async start(stack: OutboundStack): Promise<CommitTracer> {
    const { child, description } = await ArrivalLog.fork<TracerJoined>('tracer', [
      stack.serviceEnv.KAFKA_BROKERS ?? '',
      stack.topic(TopicNames.callbackRequests),
    ]);
    return new CommitTracer(child, description);
  }
}
