/**
 * What every benchmark's run needs: the repository root, CPU-profile flags for the children,
 * children that never outlive the bench, the run's exit code and timeout, its settings from the
 * environment.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

/** From bench/dist/support (compiled) or bench/src/support (tests). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

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

/**
 * A comma-separated list of numbers from the environment (`fallback` when unset or empty), each
 * above 0. A bad entry ends the bench at once, as envNumber does, naming the variable.
 */
export function envNumberList(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const values = raw.split(',').map((entry) => entry.trim());
  if (values.every((entry) => entry !== '' && Number.isFinite(Number(entry)) && Number(entry) > 0)) return values.map(Number);
  console.error(`${name} must be a comma-separated list of numbers above 0, got ${JSON.stringify(raw)}`);
  process.exit(2);
}
