import type { Logger } from 'pino';
import { ErrorCodes, HookstreamError, describeError } from './errors';

export interface ShutdownOptions {
  logger: Logger;
  /** How long every stop step together may take before the process exits anyway, in ms. */
  timeoutMs: number;
  /** Ends the process; tests replace it. Default: process.exit. */
  exit?: (code: number) => void;
}

/**
 * Graceful shutdown for one process. Components register a stop step as they start;
 * on SIGTERM or SIGINT the steps run in reverse order (last started, first stopped:
 * stop taking HTTP requests before closing the producer they use), bounded by a timeout.
 */
export class GracefulShutdown {
  private readonly steps: Array<{ name: string; stop: () => Promise<void> }> = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: ShutdownOptions) {}

  /** Registers a stop step; steps run in reverse registration order. */
  onStop(name: string, stop: () => Promise<void>): void {
    this.steps.push({ name, stop });
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
      this.safeLog(() => this.options.logger.info({ signal }, 'shutting down'));
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

  /** Runs every stop step once; later calls return the same promise. Rejects on timeout. */
  stop(): Promise<void> {
    this.stopping ??= this.runSteps();
    return this.stopping;
  }

  private async runSteps(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new HookstreamError(ErrorCodes.SHUTDOWN_TIMEOUT, `shutdown took over ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      timer.unref();
    });
    const all = (async () => {
      for (const step of [...this.steps].reverse()) {
        try {
          await step.stop();
          this.safeLog(() => this.options.logger.debug({ step: step.name }, 'stopped'));
        } catch (error) {
          this.safeLog(() => this.options.logger.error({ step: step.name, err: describeError(error) }, 'stop step failed'));
        }
      }
    })();
    try {
      await Promise.race([all, timeout]);
      this.safeLog(() => this.options.logger.info('shutdown complete'));
    } catch (error) {
      this.safeLog(() => this.options.logger.error({ err: describeError(error) }, 'shutdown timed out'));
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
