import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describeError } from '@hookstream/errors';
import { freePort, SERVICES_WITH_OPS_PORT, ServiceChild, type ExitStatus } from '@hookstream/runtime';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CLI = path.join(REPO_ROOT, 'cli', 'bin', 'hookstream.js');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Default: the test run's. */
  env?: NodeJS.ProcessEnv;
  /** Killed and failed after this, in ms. Default 120000. */
  timeoutMs?: number;
  /** Its standard input. Default: none. */
  input?: string;
}

/** Runs a Node script (compiled code) with the test's Node to completion. */
export function runNode(args: string[], options: RunOptions = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const stdin = options.input === undefined ? 'ignore' : 'pipe';
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: options.env ?? process.env, stdio: [stdin, 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: node ${args.join(' ')}\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(options.input);
  });
}

/** Runs the hookstream CLI. */
export function runCli(args: string[], options: RunOptions = {}): Promise<Finished> {
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

/** A service as the tests run one (compiled code, as deployed): on a free port, all it writes collected. */
export interface RunningService {
  /** Where its API answers (for a service with none, its ops routes). */
  url: string;
  /** Where its /metrics, /healthz and /readyz answer: its own free port for a service with a public API, else `url`. */
  opsUrl: string;
  pid: number;
  /** Everything it wrote so far on stdout and stderr, a line each. */
  output: () => string;
  /** Resolves once its /readyz answers 200; rejects (saying how it ended) when it ends first or `timeoutMs` passes. */
  untilReady: (timeoutMs: number) => Promise<void>;
  /** Resolves with how it ended. */
  ended: Promise<ExitStatus>;
  /** Sends `signal` (SIGTERM; SIGKILL after 15 s) and resolves once it has ended. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/** Starts the service at `entry` (services/<name>/dist/main.js) with `env`, without waiting for it. */
export async function spawnService(entry: string, env: NodeJS.ProcessEnv): Promise<RunningService> {
  let output = '';
  const name = path.basename(path.resolve(entry, '..', '..'));
  const service = ServiceChild.spawn({
    name,
    entry,
    cwd: REPO_ROOT,
    port: await freePort(),
    ...(SERVICES_WITH_OPS_PORT.includes(name) ? { opsPort: await freePort() } : {}),
    env,
    onLine: (line) => (output += `${line}\n`),
  });
  return {
    url: service.url,
    opsUrl: service.opsUrl,
    pid: service.pid,
    output: () => output,
    untilReady: (timeoutMs) => service.untilReady({ timeoutMs }),
    ended: service.ended,
    stop: async (signal) => {
      await service.stop({ ...(signal ? { signal } : {}) });
    },
  };
}

/** Starts the service at `entry` and resolves once it is ready; if it is not within 120 s, it is killed and the error carries all it wrote. */
export async function startReadyService(entry: string, env: NodeJS.ProcessEnv): Promise<RunningService> {
  const service = await spawnService(entry, env);
  try {
    await service.untilReady(120_000);
    return service;
  } catch (error) {
    await service.stop('SIGKILL');
    throw new Error(`${describeError(error)}\n${service.output()}`, { cause: error });
  }
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

/** Whether anything accepts connections on 127.0.0.1:`port` (a stopped stack leaves nothing listening). */
export function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * The environment of a CLI test that starts a stack of its own: nothing from the test run's
 * stack leaks in (so `stack up` really starts one), its settings file is the test's own, and
 * the usual ports are never touched.
 */
export function isolatedStackEnv(envFile: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOOKSTREAM_STACK_ENV_FILE: envFile,
    HOOKSTREAM_PORTS: 'random',
    KAFKA_BROKERS: '',
    SCHEMA_REGISTRY_URL: '',
    DATABASE_URL: '',
    DELIVERY_LOG_DATABASE_URL: '',
    // Nor another trace collector: the stack then runs its own Jaeger.
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
  };
}

/** A server a test runs beside the stack (Prometheus, S3Proxy): its output collected, stopped with its working folder. */
export interface BackgroundServer {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
  exited: Promise<void>;
  /** SIGTERM unless it has ended, then deletes `dir`. */
  stop: () => Promise<void>;
}

export function startBackgroundServer(command: string, args: string[], dir: string): BackgroundServer {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  return { child, output: () => output, exited, stop };
}
