/**
 * A Hookstream service run as a child process (the CLI's `start`, the benches, the tests): its
 * compiled entry on a given port (and ops port), ready once GET /readyz answers 200, stopped with SIGTERM and,
 * after a grace period, SIGKILL. What each caller adds (restarts, log prefixes, CPU figures, log
 * capture) stays with the caller.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { sleepUnlessAborted, withTimeout } from '../async';
import { ErrorCodes, HookstreamError } from '@hookstream/errors';

/**
 * The services with a public API (docs/operations.md), whose ops routes are on OPS_PORT: what spawns
 * one gives it an `opsPort`, or it takes its default one.
 */
export const SERVICES_WITH_OPS_PORT: readonly string[] = ['ingress', 'delivery-log'];

/** How a process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** "was killed by SIGKILL" / "exited with code 1"; `undefined` (a process that is not our child ended in a way we cannot see): "is gone". */
export function describeExit(status: ExitStatus | undefined): string {
  if (!status) return 'is gone';
  return status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
}

export interface ServiceChildOptions {
  /** Names the service in errors: "callback-sender". */
  name: string;
  /** Its compiled entry point, e.g. `<repo>/services/ingress/dist/main.js`; run with this process's Node. */
  entry: string;
  /** Its HTTP_PORT. */
  port: number;
  /**
   * Its OPS_PORT, for a service with a public API (the ingress, the delivery log), whose /metrics,
   * /healthz and /readyz are there. Default: none, the ops routes are on `port` (the other services).
   */
  opsPort?: number;
  /** Its environment (HTTP_PORT and OPS_PORT are set from `port` and `opsPort`). */
  env: NodeJS.ProcessEnv;
  /** Node flags before the entry (profiling, `--require`). Default: none. */
  nodeArgs?: readonly string[];
  /** Its working directory. Default: this process's. */
  cwd?: string;
  /** Called with every line it writes on stdout or stderr. Default: none (the last stderr lines are kept for errors anyway). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
}

export interface ReadyOptions {
  /** How long the service may take to answer /readyz with 200, in ms. Default 60000. */
  timeoutMs?: number;
  /** Stops waiting: `untilReady` then rejects with its reason. Default: none. */
  signal?: AbortSignal;
}

export interface StopOptions {
  /** The first signal sent. Default SIGTERM. */
  signal?: NodeJS.Signals;
  /** How long it has to end on its own before SIGKILL, in ms. Default 15000 (a service's own shutdown deadline is shorter). */
  graceMs?: number;
}

/** Thrown when a service started as a child process ended, or did not answer /readyz with 200, before its deadline. */
export class ServiceNotReadyError extends HookstreamError {
  constructor(message: string, details: Record<string, unknown>) {
    super(ErrorCodes.SERVICE_NOT_READY, message, { details });
  }
}

/** Lines of stderr kept for the error of a service that ended before it was ready (a fatal line, a stack trace). */
const STDERR_TAIL_LINES = 20;

/** Resolves once `${url}/readyz` answers 200 (whatever process answers there); rejects with the signal's reason once aborted. */
export async function untilReady(url: string, signal: AbortSignal): Promise<void> {
  for (;;) {
    signal.throwIfAborted();
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.any([signal, AbortSignal.timeout(1000)]) });
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // not listening yet (or aborted: seen above)
    }
    await sleepUnlessAborted(200, signal);
  }
}

/** One Hookstream service running as a child of this process. */
export class ServiceChild {
  /** http://127.0.0.1:<port>, where its API answers (and, with no ops port, its ops routes). */
  readonly url: string;
  /** Where its /metrics, /healthz and /readyz answer: http://127.0.0.1:<opsPort>, else `url`. */
  readonly opsUrl: string;
  /** -1 when it could not be started at all. */
  readonly pid: number;
  /** Resolves when it has ended (code -1 when it could not be started at all). */
  readonly ended: Promise<ExitStatus>;
  private status: ExitStatus | undefined;
  private startFailure: Error | undefined;
  private readonly stderrTail: string[] = [];
  /** Resolves once its output is read to the end, so that the stderr tail is whole. */
  private readonly drained: Promise<void>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    port: number,
    opsPort: number | undefined,
    onLine: ServiceChildOptions['onLine'],
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.opsUrl = opsPort === undefined ? this.url : `http://127.0.0.1:${opsPort}`;
    this.pid = child.pid ?? -1;
    for (const [stream, input] of [
      ['stdout', child.stdout],
      ['stderr', child.stderr],
    ] as const) {
      if (!input) continue;
      readline.createInterface({ input }).on('line', (line) => {
        if (stream === 'stderr' && this.stderrTail.push(line) > STDERR_TAIL_LINES) this.stderrTail.shift();
        onLine?.(line, stream);
      });
    }
    this.ended = new Promise<ExitStatus>((resolve) => {
      child.once('exit', (code, signal) => resolve((this.status = { code, signal })));
      // Not started at all: 'exit' never comes. ('error' also says a kill failed, which is no ending.)
      child.once('error', (error) => {
        if (child.pid !== undefined) return;
        this.startFailure = error;
        resolve((this.status = { code: -1, signal: null }));
      });
    });
    this.drained = new Promise<void>((resolve) => child.once('close', () => resolve()));
  }

  /** Starts `node [nodeArgs] <entry>` with HTTP_PORT=`port` (and OPS_PORT=`opsPort`); does not wait for it (see {@link untilReady}). */
  static spawn(options: ServiceChildOptions): ServiceChild {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.entry], {
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: {
        ...options.env,
        HTTP_PORT: String(options.port),
        ...(options.opsPort === undefined ? {} : { OPS_PORT: String(options.opsPort) }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceChild(options.name, child, options.port, options.opsPort, options.onLine);
  }

  /** How it ended; undefined while it runs. */
  get exitStatus(): ExitStatus | undefined {
    return this.status;
  }

  /**
   * Resolves once its /readyz answers 200. Rejects with a {@link ServiceNotReadyError} saying how
   * it ended and its last stderr lines when it ends first, or when `timeoutMs` passes.
   */
  async untilReady(options: ReadyOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const endedFirst = new AbortController();
    void this.ended.then(() => endedFirst.abort());
    const stops = [endedFirst.signal, AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])];
    try {
      await untilReady(this.opsUrl, AbortSignal.any(stops));
    } catch {
      options.signal?.throwIfAborted(); // the caller stopped waiting: its reason, not ours
      throw await this.notReadyError(timeoutMs);
    }
  }

  /** Sends `signal` (SIGTERM), then SIGKILL once `graceMs` has passed; resolves with how it ended. */
  async stop(options: StopOptions = {}): Promise<ExitStatus> {
    if (this.status) return this.status;
    this.child.kill(options.signal ?? 'SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), options.graceMs ?? 15_000);
    try {
      return await this.ended;
    } finally {
      clearTimeout(killer);
    }
  }

  private async notReadyError(timeoutMs: number): Promise<ServiceNotReadyError> {
    let what: string;
    if (this.startFailure) {
      what = `${this.name} could not be started: ${this.startFailure.message}`;
    } else if (this.status) {
      // Its last lines may still be in the pipe when 'exit' comes; a grandchild holding the pipe open must not hold this up.
      await withTimeout(this.drained, 1000, 'output not closed').catch(() => undefined);
      what = `${this.name} (pid ${this.pid}) ${describeExit(this.status)} before it was ready`;
      if (!this.stderrTail.length) what += '; it wrote nothing on stderr';
    } else {
      what = `${this.name} (pid ${this.pid}) was not ready at ${this.opsUrl}/readyz within ${timeoutMs / 1000} s`;
    }
    const stderr = [...this.stderrTail];
    const lines = stderr.length ? `; its last lines on stderr:\n${stderr.map((line) => `  ${line.slice(0, 1000)}`).join('\n')}` : '';
    return new ServiceNotReadyError(`${what}${lines}`, { service: this.name, pid: this.pid, url: this.url, exit: this.status, stderr });
  }
}

/** Starts a service and resolves once it is ready (see {@link ServiceChild.untilReady}); when it is not, it is killed and the error thrown. */
export async function startServiceChild(options: ServiceChildOptions & ReadyOptions): Promise<ServiceChild> {
  const service = ServiceChild.spawn(options);
  try {
    await service.untilReady(options);
    return service;
  } catch (error) {
    await service.stop({ signal: 'SIGKILL' });
    throw error;
  }
}
