import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { sleep } from '@hookstream/shared';
import { printLine } from '../output';
import { REPO_ROOT } from '../paths';
import { sleepUnlessAborted } from '../stack/interruption';
import type { ExitStatus, Incarnation } from './supervised-process';

/** One of the system's services, as `hookstream start` runs it. */
export interface ServiceSpec {
  name: string;
  /** Its compiled entry point, from the repository's root. */
  entry: string;
  defaultPort: number;
}

/** A running incarnation of a service: a child process with the same Node, its log lines prefixed with its name. */
export interface ServiceChild extends Incarnation {
  child: ChildProcess;
}

/** Starts one service on `port`; every incarnation of it takes the same port, so its URL never changes. */
export function spawnService(spec: ServiceSpec, port: number, env: NodeJS.ProcessEnv): ServiceChild {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, spec.entry)], {
    cwd: REPO_ROOT,
    env: { ...env, HTTP_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) readline.createInterface({ input: stream }).on('line', (line) => printLine(`[${spec.name}] ${line}`));
  }
  const ended = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // Not started at all (no such file): 'exit' never comes.
    child.once('error', () => resolve({ code: -1, signal: null }));
  });
  return { pid: child.pid ?? -1, child, ended };
}

/** SIGTERM, then SIGKILL after 15 s; resolves once it has ended. */
export async function stopServiceChild(service: ServiceChild): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGTERM');
  const killed = await Promise.race([service.ended.then(() => false), sleep(15_000).then(() => true)]);
  if (killed) service.child.kill('SIGKILL');
  await service.ended;
}

/** Resolves once `${url}/readyz` answers 200 (whichever incarnation answers); rejects when `signal` is aborted. */
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
