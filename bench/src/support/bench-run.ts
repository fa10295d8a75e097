/**
 * What every benchmark's run needs: the repository root, CPU-profile flags for the children,
 * children that never outlive the bench, the run's exit code and timeout, free ports, CPU time
 * from /proc (per process, the machine, and over a window) and counters from a Prometheus text page.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** BENCH_PROFILE=<dir>: node flags that make a child write a V8 CPU profile there when it stops. */
export const profileArgs = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

/** Children to stop however the run ends: none may outlive the bench. */
const children: ChildProcess[] = [];

/** Registers a child to be killed when the bench exits, whatever the reason. */
export function trackChild<T extends ChildProcess>(child: T): T {
  children.push(child);
  return child;
}

/**
 * Runs a benchmark's main: exit 0 when it ran (whatever its figures), 1 when it failed, was
 * interrupted or passed `timeoutMs`; every tracked child is killed on the way out.
 */
export function runBench(main: () => Promise<void>, timeoutMs: number): void {
  process.on('exit', () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1));
  // However the broker or the services misbehave, the run ends.
  setTimeout(() => {
    console.error(`benchmark timed out after ${Math.round(timeoutMs / 1000)} s`);
    process.exit(1);
  }, timeoutMs).unref();
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * A number from the environment (`fallback` when unset or empty). A value that is not a finite
 * number of at least `min` (by default, above 0) ends the bench at once with a message naming the
 * variable, before the bench starts anything of its own: a typo must not silently become NaN
 * rates or empty windows.
 */
export function envNumber(name: string, fallback: number, min = Number.MIN_VALUE): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (Number.isFinite(value) && value >= min) return value;
  console.error(`${name} must be a number ${min === Number.MIN_VALUE ? 'above 0' : `of at least ${min}`}, got ${JSON.stringify(raw)}`);
  process.exit(2);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** CPU seconds (user + system) process `pid` has used so far, from /proc; undefined where there is none. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in ticks of 1/100 s
  } catch {
    return undefined;
  }
}

/** Busy and total CPU time of the whole machine so far (all cores, ticks of 1/100 s), from /proc/stat. */
function machineCpuTicks(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/** The sum of a counter's series whose labels include `match` (e.g. `outcome="delivered"`). */
export function counterSum(metrics: string, name: string, match = ''): number {
  let sum = 0;
  for (const m of metrics.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
    if ((m[1] ?? '').includes(match)) sum += Number(m[2]);
  }
  return sum;
}

/**
 * The local stack's broker and registry: the processes `hookstream stack exec` (this process's
 * parent) started beside this one, named by their state folders. Empty when the stack is not ours.
 */
export function stackProcesses(): Record<string, number> {
  const found: Record<string, number> = {};
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return found;
  }
  for (const pid of pids) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid !== process.ppid || Number(pid) === process.pid) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes('/kafka/')) found.broker = Number(pid);
      else if (cmdline.includes('/registry/')) found.registry = Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** CPU used by some processes, this one and the whole machine over a window of time. */
export class CpuWindow {
  private constructor(
    private readonly pids: Array<[name: string, pid: number | undefined, start: number | undefined]>,
    private readonly ownLabel: string,
    private readonly own: NodeJS.CpuUsage,
    private readonly machine: { busy: number; total: number } | undefined,
    private readonly startedAt: number,
  ) {}

  /** Starts the window for `processes` (name → pid), this process (named `ownLabel`) and the machine. */
  static start(processes: Record<string, number | undefined>, ownLabel = 'bench'): CpuWindow {
    return new CpuWindow(
      Object.entries(processes)
        .filter(([, pid]) => pid !== undefined)
        .map(([name, pid]) => [name, pid, cpuSeconds(pid)]),
      ownLabel,
      process.cpuUsage(),
      machineCpuTicks(),
      performance.now(),
    );
  }

  /** CPU seconds the process named `name` has used since the window began; undefined where unknown. */
  cpuSecondsOf(name: string): number | undefined {
    const [, pid, start] = this.pids.find(([known]) => known === name) ?? [];
    const now = cpuSeconds(pid);
    return now === undefined || start === undefined ? undefined : now - start;
  }

  /**
   * e.g. "consumer 45 %, sender 60 %, bench (publisher) 20 %; the rest of the machine (other work
   * on it) 60 % — of a core each; machine 185 % busy of 2 cores".
   */
  describe(): string {
    const seconds = (performance.now() - this.startedAt) / 1000;
    const percent = (cpu: number) => (cpu / seconds) * 100;
    let known = 0;
    const parts = this.pids.map(([name]) => {
      const used = this.cpuSecondsOf(name);
      if (used === undefined) return `${name} n/a`;
      known += percent(used);
      return `${name} ${percent(used).toFixed(0)} %`;
    });
    const own = process.cpuUsage(this.own);
    known += percent((own.user + own.system) / 1e6);
    parts.push(`${this.ownLabel} ${percent((own.user + own.system) / 1e6).toFixed(0)} %`);
    const machine = machineCpuTicks();
    const cores = os.availableParallelism();
    if (!machine || !this.machine) return `${parts.join(', ')} of a core each`;
    const busy = ((machine.busy - this.machine.busy) / (machine.total - this.machine.total)) * cores * 100;
    return (
      `${parts.join(', ')}; the rest of the machine (other work on it) ${Math.max(0, busy - known).toFixed(0)} % ` +
      `— of a core each; machine ${busy.toFixed(0)} % busy of ${cores} cores`
    );
  }
}
