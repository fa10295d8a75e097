import { ErrorCodes, HookstreamError } from '@hookstream/errors';
export { sleepUnlessAborted, untilAborted } from '@hookstream/runtime';

/** Thrown when Ctrl-C (SIGINT) or SIGTERM stops a command before it finished; the CLI prints "interrupted" and exits 130. */
export class Interrupted extends HookstreamError {
  constructor() {
    super(ErrorCodes.INTERRUPTED, 'interrupted');
  }
}

/** Throws {@link Interrupted} once `signal` is aborted (whatever its reason). */
export function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Interrupted ? signal.reason : new Interrupted();
}

/**
 * Whether a child process ended because of an interrupt: our abort signal, or a Ctrl-C that
 * reached it straight from the terminal (it shares our process group) before our handler ran.
 * A JVM (Maven, Kafka's storage tool) exits 130 or 143 on SIGINT or SIGTERM rather than dying of it.
 */
export function endedByInterrupt(error: unknown, signal: AbortSignal | undefined): boolean {
  const e = error as { code?: unknown; signal?: unknown; killed?: unknown };
  if (signal?.aborted || e.code === 'ABORT_ERR' || e.code === 130 || e.code === 143) return true;
  // killed: our own timeout stopped it, not an interrupt.
  return (e.signal === 'SIGINT' || e.signal === 'SIGTERM') && e.killed !== true;
}

export interface InterruptWatch {
  /** Aborted, with an {@link Interrupted} reason, at the first SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** Resolves with the first signal received. */
  received: Promise<NodeJS.Signals>;
  /** Removes the handlers: call it once everything the command started is stopped. */
  dispose: () => void;
}

/**
 * Turns SIGINT and SIGTERM into an AbortSignal for a command that starts processes. The
 * handlers stay until `dispose()`: a second Ctrl-C (or `timeout` sending SIGINT to the whole
 * group again) while we stop things must not end us through Node's default handler, which
 * would leave Kafka and the registry running in their own process groups. Every signal also
 * goes to `onEach` (default: for a repeated one, a line saying shutdown is in progress).
 */
export function watchInterrupts(onEach: (signal: NodeJS.Signals, repeated: boolean) => void = sayWhenRepeated): InterruptWatch {
  const controller = new AbortController();
  let resolveReceived: (signal: NodeJS.Signals) => void = () => undefined;
  const received = new Promise<NodeJS.Signals>((resolve) => (resolveReceived = resolve));
  const onSignal = (signal: NodeJS.Signals) => {
    const repeated = controller.signal.aborted;
    controller.abort(new Interrupted());
    resolveReceived(signal);
    onEach(signal, repeated);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    received,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Tells the person pressing Ctrl-C again that we are stopping what we started, and will exit once it is stopped. */
export function sayShutdownInProgress(signal: NodeJS.Signals): void {
  process.stderr.write(`hookstream: got ${signal} again; shutdown is in progress, waiting for everything to stop\n`);
}

function sayWhenRepeated(signal: NodeJS.Signals, repeated: boolean): void {
  if (repeated) sayShutdownInProgress(signal);
}

/**
 * Runs `tasks` side by side and resolves with their results. The first to fail aborts the
 * signal the others were given, so none goes on (keeping this process busy) after the outcome
 * is known; its error is thrown once every task has settled.
 */
export async function allOrFirstFailure<T extends readonly unknown[]>(
  tasks: { [K in keyof T]: (signal: AbortSignal) => Promise<T[K]> },
  signal: AbortSignal,
): Promise<T> {
  const firstFailure = new AbortController();
  const shared = AbortSignal.any([signal, firstFailure.signal]);
  const settled = await Promise.allSettled(
    tasks.map((task) =>
      task(shared).catch((error: unknown) => {
        firstFailure.abort(error);
        throw error;
      }),
    ),
  );
  if (firstFailure.signal.aborted) throw firstFailure.signal.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
