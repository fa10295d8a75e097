/**
 * What every benchmark's run needs: the repository root, CPU-profile flags for the children,
 * children that never outlive the bench, the run's exit code and timeout, free ports, CPU time
 * from /proc and counters from a Prometheus text page.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

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
export function machineCpuTicks(): { busy: number; total: number } | undefined {
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
