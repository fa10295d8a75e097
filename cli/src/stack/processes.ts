import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { StackError } from '@hookstream/errors';
import { sleep } from '@hookstream/runtime';

/** Whether a process with this pid exists (any process: see {@link isStackProcess} for ours). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether any process of the group `pgid` is left: a killed server's children outlive it for a moment. */
export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of a process, its arguments joined by spaces; undefined when it is gone (a zombie has none). */
function commandLineOf(pid: number): string | undefined {
  if (existsSync('/proc/self/cmdline')) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() || undefined;
    } catch {
      return undefined;
    }
  }
  try {
    // No /proc (macOS): ps prints the same, unabridged with -ww.
    return execFileSync('ps', ['-ww', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is a process of the stack kept in `stateDir`. A recorded pid may belong to any
 * process by now (after a crash or a reboot pids are reused), and signalling it, or its group,
 * would hit someone else's work. Our JVMs run with `-Djava.io.tmpdir=<stateDir>/…` and our
 * PostgreSQL with `-D <stateDir>/postgres/data` and our Jaeger with `--config <stateDir>/jaeger/jaeger.yaml`,
 * so their command line names the state dir.
 */
export function isStackProcess(pid: number, stateDir: string): boolean {
  const inside = path.join(path.resolve(stateDir), path.sep);
  const commandLine = commandLineOf(pid);
  return (
    commandLine !== undefined &&
    [`-Djava.io.tmpdir=${inside}`, ` -D ${inside}`, ` --config ${inside}`].some((option) => commandLine.includes(option))
  );
}

export interface StartedProcess {
  pid: number;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Lets this Node process end while the child runs on (`stack up --detach`); until then the child keeps us alive. */
  detach: () => void;
}

/**
 * Starts a long-running child in its own process group, stdout and stderr appended to
 * `logFile`. Its own group lets us stop the child and anything it forks as one, and keeps a
 * terminal's Ctrl-C from reaching it before we shut it down in order.
 */
export function startProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; uid?: number; gid?: number },
): StartedProcess {
  const out = openSync(options.logFile, 'a');
  try {
    const { logFile: _logFile, ...spawnOptions } = options;
    const child = spawn(command, args, { ...spawnOptions, detached: true, stdio: ['ignore', out, out] });
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', () => resolve({ code: -1, signal: null }));
    });
    return { pid: child.pid, exited, detach: () => child.unref() };
  } finally {
    closeSync(out);
  }
}

/** How stopping one process went: 'absent' when it was not running (or the pid is no longer ours). */
export type StopOutcome = 'stopped' | 'killed' | 'absent';

/** How a process of the stack is asked to stop: the JVMs' group gets SIGTERM; PostgreSQL's postmaster alone SIGINT. */
export interface StopRequest {
  signal: NodeJS.Signals;
  /** The whole process group, or the process alone (it stops its children itself). */
  group: boolean;
}

export const STOP_JVM: StopRequest = { signal: 'SIGTERM', group: true };
/**
 * PostgreSQL's fast shutdown: it ends its sessions itself and checkpoints. SIGTERM would be a
 * smart shutdown, waiting for every client (a service's idle pool) to leave.
 */
export const STOP_POSTGRES: StopRequest = { signal: 'SIGINT', group: false };

/**
 * Asks a stack process to stop (`request`), SIGKILL to its group after `graceMs`; resolves once
 * it is gone. Does nothing unless the pid is still a process of `stateDir` ({@link isStackProcess}).
 * Our processes lead their own group (started detached), so the group signalled is ours too; a
 * process that leads none is signalled alone.
 */
export async function stopStackProcess(pid: number, stateDir: string, request = STOP_JVM, graceMs = 20_000): Promise<StopOutcome> {
  if (!isStackProcess(pid, stateDir)) return 'absent';
  const send = (target: number, sig: NodeJS.Signals) => {
    try {
      process.kill(target, sig);
      return true;
    } catch {
      return false; // already gone, or (for a group) it leads none
    }
  };
  const signal = (sig: NodeJS.Signals, group = true) => (group && send(-pid, sig)) || send(pid, sig);
  // Ours now, its pid cannot be reused until it has ended and been reaped: from here on "running" is enough.
  const running = () => isAlive(pid) && !isZombie(pid);
  signal(request.signal, request.group);
  let outcome: StopOutcome = 'stopped';
  if (!(await endsWithin(graceMs, running))) {
    signal('SIGKILL');
    if (!(await endsWithin(10_000, running))) throw new StackError(`process ${pid} still runs after SIGKILL`);
    outcome = 'killed';
  }
  // A moment for its parent (us, or init for a detached stack: some reap only every few seconds)
  // to reap it, so the pid is gone for whoever looks next.
  await endsWithin(3000, () => isAlive(pid));
  return outcome;
}

/** Whether the process has ended but its parent has not reaped it yet (it holds nothing any more). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false; // gone, or no /proc: isAlive decides
  }
}

/** Whether `running()` turns false within `ms`. */
async function endsWithin(ms: number, running: () => boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (running()) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}
