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

  /** Subscribes to SIGTERM and SIGINT; a second signal exits at once. */
  handleSignals(): void {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (this.stopping) {
        this.options.logger.warn({ signal }, 'second signal: exiting now');
        (this.options.exit ?? process.exit)(1);
        return;
      }
      this.options.logger.info({ signal }, 'shutting down');
      void this.stop().then(
        () => (this.options.exit ?? process.exit)(0),
        () => (this.options.exit ?? process.exit)(1),
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
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
          this.options.logger.debug({ step: step.name }, 'stopped');
        } catch (error) {
          this.options.logger.error({ step: step.name, err: describeError(error) }, 'stop step failed');
        }
      }
    })();
    try {
      await Promise.race([all, timeout]);
      this.options.logger.info('shutdown complete');
    } catch (error) {
      this.options.logger.error({ err: describeError(error) }, 'shutdown timed out');
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
