import type { Logger } from 'pino';
import { ErrorCodes, HookstreamError, describeError } from '@hookstream/errors';

/**
 * The phases of a graceful shutdown, in the order they run; the one place that order is decided.
 * Before the first, the service is marked draining: /readyz answers 503 (check `draining`),
 * `hookstream_service_ready` is 0, and the ingress refuses new webhooks with 503 and Retry-After.
 */
export const STOP_PHASES = [
  /** HTTP requests in flight (the ingress's webhooks) are answered, each once durable. */
  'requests',
  /**
   * Components stop: consumers start no new record, finish or hand back those in flight, commit
   * what is done and leave their groups (an open transaction commits or aborts); state readers stop.
   */
  'work',
  /** Pending writes are flushed, then the producers disconnect. */
  'producers',
  /** Clients whose work is over: the sender's outbound HTTP client (aborting what was handed back), the readiness probe. */
  'connections',
  /** The HTTP listeners close, the API's then the ops one (OPS_PORT): /healthz, /readyz and /metrics answer until here; last, the spans still buffered are exported. */
  'http',
] as const;

export type StopPhase = (typeof STOP_PHASES)[number];

/** What a stop step is given. */
export interface StopContext {
  /**
   * Aborted once the time for finishing in-flight work is up: a step then stops waiting and hands
   * back what is still in flight (records left uncommitted for the next owner of their partition),
   * so committing and closing still fit in the shutdown timeout.
   */
  handBack: AbortSignal;
}

export type StopStep = (context: StopContext) => Promise<void>;

export interface ShutdownOptions {
  logger: Logger;
  /** How long every stop step together may take before the process exits anyway, in ms. */
  timeoutMs: number;
  /** How long in-flight work may take to finish before it is handed back, in ms. Default 3/4 of `timeoutMs`. */
  handBackAfterMs?: number;
  /** Ends the process; tests replace it. Default: process.exit. */
  exit?: (code: number) => void;
}

/**
 * Graceful shutdown for one process. Components register a stop step, in a phase, as they start;
 * on SIGTERM or SIGINT the process is marked draining at once, then the phases run in the order of
 * {@link STOP_PHASES} and the steps of one phase in reverse registration order (last started, first
 * stopped), all bounded by a timeout: exit 0 when every step is done in time, 1 otherwise.
 */
export class GracefulShutdown {
  private readonly steps: Array<{ name: string; phase: StopPhase; stop: StopStep }> = [];
  private stopping: Promise<void> | undefined;
  private isDraining = false;

  constructor(private readonly options: ShutdownOptions) {}

  /** True from the shutdown signal on: the service takes no new work and /readyz answers 503. */
  get draining(): boolean {
    return this.isDraining;
  }

  /** Registers a stop step in `phase` (default `work`). */
  onStop(name: string, stop: StopStep, phase: StopPhase = 'work'): void {
    this.steps.push({ name, phase, stop });
  }

  /**
   * Subscribes to SIGTERM and SIGINT; a second signal exits at once. Exiting never depends on
   * logging or on the stop steps settling: an ingress whose stdout reader had died did not exit
   * on SIGTERM, so the second signal exits before anything else, and a hard timer ends the
   * process shortly after the shutdown timeout whatever the steps are doing.
   */
  handleSignals(): void {
    const exit = (code: number): void => (this.options.exit ? this.options.exit(code) : process.exit(code));
    const onSignal = (signal: NodeJS.Signals): void => {
      if (this.stopping) {
        exit(1);
        return;
      }
      const hardStop = setTimeout(() => exit(1), this.options.timeoutMs + 1000);
      this.safeLog(() => this.options.logger.info({ signal, timeoutMs: this.options.timeoutMs }, 'shutting down: draining'));
      void this.stop().then(
        () => {
          clearTimeout(hardStop);
          exit(0);
        },
        () => {
          clearTimeout(hardStop);
          exit(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }

  /** Logging must never stop a shutdown (a closed or stalled stdout throws or blocks). */
  private safeLog(log: () => void): void {
    try {
      log();
    } catch {
      // nothing to do: the process is stopping anyway
    }
  }

  /** Marks the process draining and runs every stop step once; later calls return the same promise. Rejects on timeout. */
  stop(): Promise<void> {
    // Before any step runs: the first ones already see the process draining.
    this.isDraining = true;
    this.stopping ??= this.runSteps();
    return this.stopping;
  }

  /** The steps in the order they run: by phase, then last registered first. */
  private ordered(): Array<{ name: string; phase: StopPhase; stop: StopStep }> {
    const reversed = [...this.steps].reverse();
    return STOP_PHASES.flatMap((phase) => reversed.filter((step) => step.phase === phase));
  }

  private async runSteps(): Promise<void> {
    const { timeoutMs } = this.options;
    const handBack = new AbortController();
    const handBackTimer = setTimeout(
      () => handBack.abort(new Error('in-flight work handed back')),
      this.options.handBackAfterMs ?? (timeoutMs * 3) / 4,
    );
    handBackTimer.unref();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HookstreamError(ErrorCodes.SHUTDOWN_TIMEOUT, `shutdown took over ${timeoutMs} ms`)), timeoutMs);
      timer.unref();
    });
    const context: StopContext = { handBack: handBack.signal };
    const all = (async () => {
      for (const step of this.ordered()) {
        const started = Date.now();
        try {
          await step.stop(context);
          this.safeLog(() => this.options.logger.debug({ step: step.name, phase: step.phase, ms: Date.now() - started }, 'stopped'));
        } catch (error) {
          this.safeLog(() => this.options.logger.error({ step: step.name, err: describeError(error) }, 'stop step failed'));
        }
      }
    })();
    try {
      await Promise.race([all, timeout]);
      this.safeLog(() => this.options.logger.info({ handedBack: handBack.signal.aborted }, 'shutdown complete'));
    } catch (error) {
      this.safeLog(() => this.options.logger.error({ err: describeError(error) }, 'shutdown timed out'));
      throw error;
    } finally {
      clearTimeout(timer);
      clearTimeout(handBackTimer);
    }
  }
}
