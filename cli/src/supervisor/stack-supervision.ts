import { StackStoppedError, restartStackPart, restartableParts, type StackPart } from '../stack/heal';
import { sleepUnlessAborted, untilAborted } from '../stack/interruption';
import { isStackProcess } from '../stack/processes';
import { readRunInfo } from '../stack/run-info';
import { SupervisedProcess, type Dependency, type Incarnation } from './supervised-process';

/**
 * Whether the local stack is whole, for the services that depend on it: a service that
 * crashes while the broker is away is not blamed for it, and is started again only once the
 * stack is back.
 */
export class StackAvailability implements Dependency {
  private readonly down = new Set<StackPart>();
  private lastBackAt = 0;
  private waiters: Array<() => void> = [];

  markDown(part: StackPart): void {
    this.down.add(part);
  }

  markUp(part: StackPart): void {
    if (!this.down.delete(part) || this.down.size > 0) return;
    this.lastBackAt = Date.now();
    for (const wake of this.waiters.splice(0)) wake();
  }

  awaySince(since: number): boolean {
    return this.down.size > 0 || this.lastBackAt >= since;
  }

  whenUp(signal: AbortSignal): Promise<void> {
    if (this.down.size === 0) return Promise.resolve();
    return untilAborted(new Promise<void>((resolve) => this.waiters.push(resolve)), signal);
  }
}

/** How often a stack JVM that is not our child is checked for being alive, in ms. */
const LIVENESS_POLL_MS = 500;

export interface StackSupervisionOptions {
  stateDir: string;
  cacheDir: string;
  availability: StackAvailability;
  say: (line: string) => void;
}

/**
 * Keeps the local stack recorded in `stateDir` whole while `hookstream start` runs: a broker,
 * registry, PostgreSQL or Jaeger that dies is started again on the same ports with the same state (see
 * restartStackPart), under the same restart rule as the services. Whether the stack was
 * started by this command or by `stack up --detach`, its JVMs are watched through run.json,
 * so one healed by another `stack up` is followed too. `done` rejects when a part is given up on.
 */
export function superviseStack(options: StackSupervisionOptions): { done: Promise<void>; stop: () => void } {
  const { stateDir, availability, say } = options;
  const stopping = new AbortController();
  const info = readRunInfo(stateDir);
  const parts = (info ? restartableParts(info) : []).map((part) => {
    const watched = (incarnation: Incarnation): Incarnation => {
      // No service waits for Jaeger: without it their spans are dropped, nothing else.
      if (part === 'jaeger') return incarnation;
      void incarnation.ended.then(
        () => availability.markDown(part),
        () => undefined,
      );
      return incarnation;
    };
    // Stopped on purpose (`stack down`): not a crash, and nothing to start again.
    const stopped = () => {
      const recorded = readRunInfo(stateDir);
      return !recorded || recorded.stopping ? new StackStoppedError(stateDir) : undefined;
    };
    const supervised = new SupervisedProcess({
      name: part,
      say,
      refusal: stopped,
      launchRefusal: (error) => (error instanceof StackStoppedError ? error : undefined),
      launch: async (signal) => {
        const started = await restartStackPart(part, { stateDir, cacheDir: options.cacheDir, signal, log: say });
        availability.markUp(part);
        if (!started) return watched(recordedIncarnation(part, stateDir, stopping.signal));
        // It outlives this command when the stack is not ours to stop (`stack up --detach` started it).
        started.detach();
        return watched({ pid: started.pid, ended: started.exited });
      },
    });
    return { supervised, first: watched(recordedIncarnation(part, stateDir, stopping.signal)) };
  });
  const done = Promise.all(parts.map(({ supervised, first }) => supervised.supervise(first))).then(() => undefined);
  return {
    done,
    stop: () => {
      stopping.abort();
      for (const { supervised } of parts) supervised.stop();
    },
  };
}

/** The part's process as run.json records it now; it ends when that pid stops being a JVM of this state dir. */
function recordedIncarnation(part: StackPart, stateDir: string, signal: AbortSignal): Incarnation {
  const pid = readRunInfo(stateDir)?.processes[part] ?? -1;
  const ended = (async () => {
    while (isStackProcess(pid, stateDir)) {
      await sleepUnlessAborted(LIVENESS_POLL_MS, signal).catch(() => undefined);
      // Supervision stopped: nobody waits for this any more, and it must not read as an ending.
      if (signal.aborted) return new Promise<never>(() => undefined);
    }
    return undefined; // not necessarily our child: its exit status is unknown
  })();
  return { pid, ended };
}
