/*
 * Jaeger v2, the local stack's trace store (docs/tracing.md): built once from its Go module into
 * the cache (`go build`, a few minutes on two cores: only a fresh machine pays it), then run with
 * OTLP over HTTP in and its UI and query API out, each on a free port of 127.0.0.1 (with no
 * configuration it would serve its UI on every interface), keeping traces in memory.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { StackError } from '@hookstream/errors';
import { freePort, sleep } from '@hookstream/runtime';
import { fillOnce } from './artifacts';
import { Interrupted, endedByInterrupt } from './interruption';
import { startProcess } from './processes';

const run = promisify(execFile);

export const JAEGER_MODULE = 'github.com/jaegertracing/jaeger/cmd/jaeger';
export const JAEGER_VERSION = 'v1.76.0';

export interface JaegerBinary {
  binary: string;
  /** True when nothing had to be built. */
  cached: boolean;
}

/**
 * The Jaeger executable: HOOKSTREAM_JAEGER_BIN when set, else the one built into the cache (built
 * now if missing). Undefined when Go is not on PATH to build it: the caller goes on without traces.
 */
export async function ensureJaeger(
  cacheDir: string,
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
): Promise<JaegerBinary | undefined> {
  if (env.HOOKSTREAM_JAEGER_BIN) return { binary: path.resolve(env.HOOKSTREAM_JAEGER_BIN), cached: true };
  const dir = path.join(cacheDir, `jaeger-${JAEGER_VERSION}`);
  const binary = path.join(dir, 'jaeger');
  if (existsSync(path.join(dir, '.complete'))) return { binary, cached: true };
  if (!(await goAvailable(env))) return undefined;
  await fillOnce(dir, async (work) => {
    // A scratch module of its own: `go get -tool` pins Jaeger's whole dependency graph in it.
    const module = path.join(work, 'module');
    mkdirSync(module);
    await go(['mod', 'init', 'hookstream.local/jaeger'], module, signal);
    await go(['get', '-tool', `${JAEGER_MODULE}@${JAEGER_VERSION}`], module, signal);
    await go(['build', '-o', path.join(work, 'jaeger'), JAEGER_MODULE], module, signal);
  });
  return { binary, cached: false };
}

async function goAvailable(env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await run('go', ['version'], { timeout: 30_000, env });
    return true;
  } catch {
    return false;
  }
}

async function go(args: string[], cwd: string, signal: AbortSignal | undefined): Promise<void> {
  try {
    await run('go', args, { cwd, timeout: 30 * 60_000, maxBuffer: 16 * 1024 * 1024, signal });
  } catch (error) {
    if (endedByInterrupt(error, signal)) throw new Interrupted();
    const output = (error as { stderr?: string }).stderr?.trim().split('\n').slice(-10).join('\n');
    throw new StackError(`building Jaeger failed (go ${args.join(' ')})${output ? `:\n${output}` : ''}`, { cause: error, retryable: true });
  }
}

/** Why no local Jaeger runs: said to the person starting it, and kept in run.json for `stack status`. */
export interface NoJaeger {
  none: string;
}

/**
 * The local stack's Jaeger (`stack up`, `hookstream start`), its data in `dir`, on free ports (a
 * restart on the recorded ones is heal.ts's). Built first when not cached and Go is on PATH: a
 * trace store is worth the one-time build, as for the tests. Never fails the
 * stack: when the environment already points traces elsewhere (OTEL_EXPORTER_OTLP_ENDPOINT), Go is
 * missing, the build fails or Jaeger does not start, it resolves with why there is none (and says
 * so); only an interrupt is thrown.
 */
export async function startLocalJaeger(options: {
  cacheDir: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  signal?: AbortSignal;
}): Promise<RunningJaeger | NoJaeger> {
  const { env, log } = options;
  const none = (why: string) => {
    log(`traces: ${why}`);
    return { none: why };
  };
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    return none('exported where OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT says; no local Jaeger');
  }
  const cached = existsSync(path.join(options.cacheDir, `jaeger-${JAEGER_VERSION}`, '.complete')) || Boolean(env.HOOKSTREAM_JAEGER_BIN);
  if (!cached) log(`traces: building Jaeger ${JAEGER_VERSION} with Go into ${options.cacheDir} (once per machine; a few minutes)`);
  try {
    const built = await ensureJaeger(options.cacheDir, env, options.signal);
    if (!built) return none('Go is not on PATH to build Jaeger: starting without a trace store (the services trace nothing)');
    const began = Date.now();
    const jaeger = await startJaeger({ binary: built.binary, dir: options.dir });
    log(`jaeger: ready at ${jaeger.uiUrl}, OTLP at ${jaeger.otlpUrl} (${Date.now() - began} ms)`);
    return jaeger;
  } catch (error) {
    if (error instanceof Interrupted || options.signal?.aborted) throw new Interrupted();
    return none(`no trace store: ${(error as Error).message}`);
  }
}

/** A Jaeger running for the local stack or a test. */
export interface RunningJaeger {
  /** Where OTLP over HTTP is taken: the services' OTEL_EXPORTER_OTLP_ENDPOINT. */
  otlpUrl: string;
  /** Its UI, and its query API under /api (`/api/traces?service=…`). */
  uiUrl: string;
  pid: number;
  ports: JaegerPorts;
  logFile: string;
  /** Resolves when it ends, however. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Lets this Node process end while Jaeger runs on (`stack up --detach`). */
  detach: () => void;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it has ended. */
  stop: () => Promise<void>;
}

/** Jaeger's listeners on 127.0.0.1: OTLP over HTTP in, its UI and query API, and its gRPC query API (unused, but it always listens). */
export interface JaegerPorts {
  otlp: number;
  ui: number;
  grpc: number;
}

/**
 * Starts `binary` with its data in memory and its log in `dir`, on `ports` when given (else free
 * ones); resolves once its query API answers. Its command line names `dir` (`--config
 * <dir>/jaeger.yaml`): what tells a stack's Jaeger apart from another process (isStackProcess).
 */
export async function startJaeger(options: {
  binary: string;
  dir: string;
  ports?: JaegerPorts;
  readyTimeoutMs?: number;
}): Promise<RunningJaeger> {
  mkdirSync(options.dir, { recursive: true });
  const ports = options.ports ?? { otlp: await freePort(), ui: await freePort(), grpc: await freePort() };
  const { otlp, ui } = ports;
  const config = path.join(options.dir, 'jaeger.yaml');
  writeFileSync(config, configYaml(ports));
  const logFile = path.join(options.dir, 'jaeger.log');
  const started = startProcess(options.binary, ['--config', config], { cwd: options.dir, env: process.env, logFile });
  let ended = false;
  void started.exited.then(() => (ended = true));
  const jaeger: RunningJaeger = {
    otlpUrl: `http://127.0.0.1:${otlp}`,
    uiUrl: `http://127.0.0.1:${ui}`,
    pid: started.pid,
    ports,
    logFile,
    exited: started.exited,
    detach: started.detach,
    stop: async () => {
      if (ended) return;
      signalGroup(started.pid, 'SIGTERM');
      const killer = setTimeout(() => signalGroup(started.pid, 'SIGKILL'), 10_000);
      await started.exited;
      clearTimeout(killer);
    },
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (ended) throw new StackError(`Jaeger exited as it started; see ${logFile}`);
    try {
      const response = await fetch(`${jaeger.uiUrl}/api/services`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return jaeger;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await jaeger.stop();
      throw new StackError(`Jaeger did not answer at ${jaeger.uiUrl} in time; see ${logFile}`);
    }
    await sleep(200);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Jaeger's all-in-one configuration cut to what the stack uses, every listener on loopback, no metrics endpoint of its own. */
function configYaml(ports: { otlp: number; ui: number; grpc: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memory_store
    http:
      endpoint: 127.0.0.1:${ports.ui}
    grpc:
      endpoint: 127.0.0.1:${ports.grpc}
  jaeger_storage:
    backends:
      memory_store:
        memory:
          max_traces: 100000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlp}
processors:
  batch:
exporters:
  jaeger_storage_exporter:
    trace_storage: memory_store
`;
}
