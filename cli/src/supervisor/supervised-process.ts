import { ErrorCodes, HookstreamError, describeError } from '@hookstream/errors';
import { describeExit, type ExitStatus } from '@hookstream/runtime';
import { sleepUnlessAborted, untilAborted } from '../stack/interruption';
import { RestartPolicy } from './restart-policy';

/** One run of a supervised process. */
export interface Incarnation {
  pid: number;
  /** Resolves when the process ends (undefined when it is not our child and its status is unknown). */
  ended: Promise<ExitStatus | undefined>;
}

/** What a supervised process depends on (the local stack): crashes while it is away are not held against the process, and restarts wait for it. */
export interface Dependency {
  /** Whether it is away now, or was at any moment since `since` (ms since the epoch). */
  awaySince: (since: number) => boolean;
  /** Resolves once it is up (at once when it is); rejects when `signal` is aborted. */
  whenUp: (signal: AbortSignal) => Promise<void>;
}

export interface SupervisedProcessOptions {
  /** Shown in every line: "callback-sender", "kafka". */
  name: string;
  /** Starts the process again; rejects when it could not (which counts as a crash). */
  launch: (signal: AbortSignal) => Promise<Incarnation>;
  /** An error for an ending that must not be retried (a service refusing its configuration); default: none. */
  refusal?: (status: ExitStatus | undefined) => Error | undefined;
  /** The same for a failed launch (the stack was stopped meanwhile); default: none, every failed launch is retried. */
  launchRefusal?: (error: unknown) => Error | undefined;
  /** Resolves once a restarted incarnation serves again, for the "ready again" line; default: none is printed. */
  whenServing?: (signal: AbortSignal) => Promise<void>;
  /** Default: {@link RestartPolicy} with its defaults. */
  policy?: RestartPolicy;
  dependency?: Dependency;
  say: (line: string) => void;
}

/** Thrown when a supervised process kept crashing (or could not be started again) and was given up on. */
export class ProcessGaveUpError extends HookstreamError {
  constructor(message: string) {
    super(ErrorCodes.PROCESS_GAVE_UP, message);
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Keeps one process running: when it ends it is started again after the policy's backoff,
 * and each step is said in one line (how it ended, when it restarts, when it serves again).
 * `supervise` rejects when the process is given up on or refused to run, and resolves once
 * `stop()` is called (stopping the process itself is the caller's part).
 */
export class SupervisedProcess {
  private readonly stopping = new AbortController();
  private readonly policy: RestartPolicy;
  private restarts = 0;

  constructor(private readonly options: SupervisedProcessOptions) {
    this.policy = options.policy ?? new RestartPolicy();
  }

  /** Stops supervising: nothing is restarted after this. */
  stop(): void {
    this.stopping.abort();
  }

  async supervise(first: Incarnation): Promise<void> {
    const { name, say } = this.options;
    const signal = this.stopping.signal;
    let incarnation: Incarnation | undefined = first;
    let startedAt = Date.now();
    let launchFailure = '';
    for (;;) {
      let what: string;
      if (incarnation) {
        const status = await untilAborted(incarnation.ended, signal).catch(() => undefined);
        if (signal.aborted) return;
        const refusal = this.options.refusal?.(status);
        if (refusal) throw refusal;
        what = `${name} (pid ${incarnation.pid}) ${describeExit(status)} after ${seconds(Date.now() - startedAt)}`;
      } else {
        what = `${name} could not be started again: ${launchFailure}`;
      }
      const downAt = Date.now();
      const counted = !this.options.dependency?.awaySince(startedAt);
      const decision = this.policy.onCrash(downAt - startedAt, counted);
      if (decision.giveUp) {
        throw new ProcessGaveUpError(`${what}; gave up on ${name} after ${this.policy.describe()}`);
      }
      const why = counted ? '' : ' (not counted as its crash: the local stack was down)';
      say(`${what}; restarting it in ${seconds(decision.delayMs)}${why}`);
      try {
        await sleepUnlessAborted(decision.delayMs, signal);
        await this.options.dependency?.whenUp(signal);
      } catch {
        return; // stopped
      }
      if (signal.aborted) return;
      startedAt = Date.now();
      try {
        incarnation = await this.options.launch(signal);
      } catch (error) {
        if (signal.aborted) return;
        const refusal = this.options.launchRefusal?.(error);
        if (refusal) throw refusal;
        incarnation = undefined;
        launchFailure = describeError(error);
        continue;
      }
      this.restarts += 1;
      say(`${name} started again (pid ${incarnation.pid}, restart ${this.restarts})`);
      this.sayWhenServing(incarnation, downAt);
    }
  }

  /** "callback-sender is ready again, 4.2 s after it went down", unless this incarnation ends (or supervision stops) first. */
  private sayWhenServing(incarnation: Incarnation, downAt: number): void {
    const { whenServing, name, say } = this.options;
    if (!whenServing) return;
    const ended = new AbortController();
    void incarnation.ended.then(
      () => ended.abort(),
      () => undefined,
    );
    whenServing(AbortSignal.any([this.stopping.signal, ended.signal])).then(
      () => say(`${name} is ready again, ${seconds(Date.now() - downAt)} after it went down`),
      () => undefined, // ended first: its next crash is said then
    );
  }
}
