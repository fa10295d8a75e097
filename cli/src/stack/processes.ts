import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { sleep } from '@hookstream/shared';

/** Whether a process with this pid exists (and is not a zombie we could reap). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface StartedProcess {
  pid: number;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts a long-running child in its own process group, stdout and stderr appended to
 * `logFile`. Its own group lets us stop the child and anything it forks as one, and keeps a
 * terminal's Ctrl-C from reaching it before we shut it down in order.
 */
export function startProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string },
): StartedProcess {
  const out = openSync(options.logFile, 'a');
  try {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', out, out] });
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', () => resolve({ code: -1, signal: null }));
    });
    // Detached: our exit must not wait for it; `stack down` (or our own shutdown) stops it.
    child.unref();
    return { pid: child.pid, exited };
  } finally {
    closeSync(out);
  }
}

/** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once the leader is gone. */
export async function stopProcessGroup(pid: number, graceMs = 20_000): Promise<'stopped' | 'killed' | 'absent'> {
  if (!isAlive(pid)) return 'absent';
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return 'stopped';
    await sleep(100);
  }
  signal('SIGKILL');
  while (isAlive(pid)) await sleep(50);
  return 'killed';
}
