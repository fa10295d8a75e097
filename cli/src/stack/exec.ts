import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import { StackError } from '@hookstream/errors';
import { untilStackServes } from './health';
import { sayShutdownInProgress, throwIfInterrupted, watchInterrupts } from './interruption';
import { portPreference } from './ports';
import { livePids, readRunInfo, traceSettings, type StackSettings } from './run-info';
import { startStack, type RunningStack } from './stack';
import { defaultStateDir, localSecrets, makeEphemeralStateDir, type LocalSecrets } from './state-dir';

export interface ExecOptions {
  /** A fresh, throwaway state dir and free ports (tests) instead of the persistent state dir. */
  ephemeral?: boolean;
  cacheDir: string;
  /** Kafka nodes of a stack started for the command: 1 or 3. Default 1. */
  brokers?: number;
  /** With `ephemeral`: run Jaeger in the fresh stack too. Default false (see {@link execWithStack}). */
  traces?: boolean;
}

/** The stack a command runs against, and what to undo after it. */
interface StackForCommand {
  settings: StackSettings;
  /** OTEL_EXPORTER_OTLP_ENDPOINT and DELIVERY_LOG_TRACE_URL of the stack's Jaeger, when it runs one. */
  traces?: Record<string, string>;
  secrets?: LocalSecrets;
  /** Set when the stack was started for this command. */
  started?: RunningStack;
}

const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Runs `command` against a stack, with KAFKA_BROKERS, SCHEMA_REGISTRY_URL and DATABASE_URL
 * (the stack's PostgreSQL) set: the environment's own when KAFKA_BROKERS and
 * SCHEMA_REGISTRY_URL are set (nothing is started; DATABASE_URL is then the environment's too), else the one already running from the
 * state dir (not with --ephemeral), else one started here and stopped when the command ends,
 * fails, or this process is interrupted. Resolves with the exit code to pass on.
 *
 * A stack that runs Jaeger has the command trace into it (OTEL_EXPORTER_OTLP_ENDPOINT). A fresh
 * --ephemeral one (every test run) starts none unless `traces` asks. Jaeger itself would cost
 * little (ready in 0.2-0.4 s, 30-50 ms of CPU, loaded machine, 2026-11-29), but every service
 * every test starts would then load the OpenTelemetry SDK and trace every record, at +9 % CPU per
 * delivery (docs/benchmarks.md), for spans nobody reads: the tests that read traces run a Jaeger of their own.
 */
export async function execWithStack(command: string[], opts: ExecOptions): Promise<number> {
  const [program, ...args] = command;
  if (!program) throw new StackError('no command given');
  let child: ChildProcess | undefined;
  // Each signal goes on to the command while it runs (`kill` reaches only us, not our group);
  // after it, a repeated one only says that the stack is being stopped.
  const interrupts = watchInterrupts((signal, repeated) => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
    else if (repeated) sayShutdownInProgress(signal);
  });
  const stateDir = opts.ephemeral ? makeEphemeralStateDir() : defaultStateDir();
  let stack: StackForCommand | undefined;
  try {
    stack = await stackForCommand(stateDir, opts, interrupts.signal);
    const env: NodeJS.ProcessEnv = { ...process.env, ...stack.settings };
    // The environment's own keys, and its own trace collector, win over the local stack's (an empty one is unset, as for KAFKA_BROKERS).
    for (const [name, value] of Object.entries({ ...stack.secrets, ...stack.traces })) env[name] ||= value;
    throwIfInterrupted(interrupts.signal);
    child = spawn(program, args, { stdio: 'inherit', env });
    return await exitCodeOf(child, program);
  } finally {
    // Nothing is printed after the command unless stopping fails: a CI harness reads the command's own last line.
    const stopped = await stack?.started?.stop();
    for (const p of stopped ?? []) {
      if (p.outcome === 'killed') say(`hookstream: the local stack's ${p.name} (pid ${p.pid}) did not stop in time and was killed`);
    }
    if (opts.ephemeral) rmSync(stateDir, { recursive: true, force: true });
    interrupts.dispose();
  }
}

async function stackForCommand(stateDir: string, opts: ExecOptions, signal: AbortSignal): Promise<StackForCommand> {
  const { KAFKA_BROKERS, SCHEMA_REGISTRY_URL } = process.env;
  if (KAFKA_BROKERS && SCHEMA_REGISTRY_URL) {
    say(`using KAFKA_BROKERS=${KAFKA_BROKERS} and SCHEMA_REGISTRY_URL=${SCHEMA_REGISTRY_URL} from the environment`);
    return { settings: { KAFKA_BROKERS, SCHEMA_REGISTRY_URL } };
  }
  const running = opts.ephemeral ? undefined : readRunInfo(stateDir);
  if (running && livePids(running, stateDir).length > 0) {
    say(`using the local stack already running from ${stateDir}`);
    await untilStackServes(running.settings, stateDir, signal, say);
    return { settings: running.settings, secrets: localSecrets(stateDir), traces: traceSettings(running) };
  }
  const began = Date.now();
  say(`starting a ${opts.ephemeral ? 'fresh' : 'persistent'} local stack in ${stateDir}`);
  const started = await startStack({
    stateDir,
    cacheDir: opts.cacheDir,
    ports: opts.ephemeral ? 'random' : portPreference(),
    log: (l) => say(`  ${l}`),
    signal,
    brokers: opts.brokers,
    traces: !opts.ephemeral || Boolean(opts.traces),
  });
  say(`stack ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  return { settings: started.info.settings, secrets: started.secrets, traces: traceSettings(started.info), started };
}

/** The command's exit code; one killed by a signal gives 128 + the signal's number, as a shell reports it. */
function exitCodeOf(child: ChildProcess, program: string): Promise<number> {
  return new Promise<number>((resolve) => {
    child.once('error', (error) => {
      say(`hookstream: could not run ${program}: ${error.message}`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0)));
  });
}
