import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CLI = path.join(REPO_ROOT, 'cli', 'bin', 'hookstream.js');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a Node script (compiled code) with the test's Node to completion. */
export function runNode(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: node ${args.join(' ')}\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the hookstream CLI. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Finished> {
  return runNode([CLI, ...args], options);
}

/** A long-running child whose output is collected, for services. */
export function startNode(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Pids of every process whose command line contains `needle` (from /proc). */
export function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

/**
 * The environment of a CLI test that starts a stack of its own: nothing from the test run's
 * stack leaks in (so `stack up` really starts one), its settings file is the test's own, and
 * the usual ports are never touched.
 */
export function isolatedStackEnv(envFile: string): NodeJS.ProcessEnv {
  return { ...process.env, HOOKSTREAM_STACK_ENV_FILE: envFile, HOOKSTREAM_PORTS: 'random', KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: '' };
}
