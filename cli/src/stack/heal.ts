import path from 'node:path';
import { StackError, describeError } from '@hookstream/errors';
import { ensureApicurio, ensureKafka } from './artifacts';
import { Interrupted, sleepUnlessAborted } from './interruption';
import { ensureJaeger, startJaeger } from './jaeger';
import { findJavaRuntimes, requireJava, type JavaRuntime } from './java';
import { startBroker } from './kafka-broker';
import { logOffset } from './logs';
import { isPortFree } from './ports';
import { startPostgres, waitForPostgres } from './postgres-server';
import { STOP_JVM, STOP_POSTGRES, isGroupAlive, stopStackProcess, type StartedProcess } from './processes';
import { waitForBroker, waitForRegistry } from './readiness';
import { startRegistry } from './registry-server';
import { readRunInfo, recordedProcesses, writeRunInfo, type StackRunInfo } from './run-info';
import { lockStateDir, startInProgress } from './state-dir';
import { MIN_JAVA, STACK_VERSIONS } from './versions';

/** A part of the local stack that can be down on its own and started again on its own. */
export type StackPart = 'kafka' | 'registry' | 'postgres' | 'jaeger';

/**
 * The parts of a recorded stack that can be started again on their own, in start order. A
 * cluster's nodes (`stack up --brokers 3`) are not among them: a node needs the cluster's
 * membership to start, and the cluster serves on without one node meanwhile.
 */
export function restartableParts(info: StackRunInfo): StackPart[] {
  // A run.json of an older stack records no PostgreSQL: there is none to start again.
  const postgres: StackPart[] = info.processes.postgres === undefined ? [] : ['postgres'];
  // Jaeger when the stack runs one (run.json says why not otherwise: `traces.none`).
  const jaeger: StackPart[] = info.processes.jaeger === undefined ? [] : ['jaeger'];
  return [...(info.cluster ? [] : ['kafka' as const]), 'registry', ...postgres, ...jaeger];
}

/** The restartable parts recorded in run.json whose processes are not running. */
export function partsDown(info: StackRunInfo, stateDir: string): StackPart[] {
  const processes = recordedProcesses(info, stateDir);
  return restartableParts(info).filter((part) => !processes[part]?.alive);
}

/** Where a part serves, for people: "127.0.0.1:9092 (controller :9093)". */
export function partEndpoint(info: StackRunInfo, part: StackPart): string {
  if (part === 'postgres') return `127.0.0.1:${info.ports.postgres}`;
  if (part === 'jaeger') return `127.0.0.1:${info.ports.jaegerUi} (OTLP :${info.ports.jaegerOtlp})`;
  return part === 'kafka'
    ? `127.0.0.1:${info.ports.kafka} (controller :${info.ports.kafkaController})`
    : `127.0.0.1:${info.ports.registry} (management :${info.ports.registryManagement})`;
}

/** Thrown when the stack was stopped (`hookstream stack down`) while one of its parts was to be started again: nothing is started. */
export class StackStoppedError extends StackError {
  constructor(stateDir: string) {
    super(`the local stack in ${stateDir} was stopped (\`hookstream stack down\`): nothing of it is started again`);
  }
}

/** Records in run.json that the stack is being stopped, so no healer starts again what is stopped now. */
export function markStopping(stateDir: string): void {
  const info = readRunInfo(stateDir);
  if (info) writeRunInfo({ ...info, stopping: true });
}

/** run.json as it is now, unless the stack has been stopped or is being stopped. */
function recordedUnlessStopped(stateDir: string): StackRunInfo {
  const info = readRunInfo(stateDir);
  if (!info || info.stopping) throw new StackStoppedError(stateDir);
  return info;
}

export interface RestartPartOptions {
  stateDir: string;
  cacheDir: string;
  /** Progress lines for a person. Default: none. */
  log?: (line: string) => void;
  /** Ends the restart: what was started is stopped and {@link Interrupted} thrown. Default: none. */
  signal?: AbortSignal;
  /** How long the part may take to serve again (and to wait for another start to finish), in ms. Default 120000. */
  readyTimeoutMs?: number;
}

/**
 * Starts one part of a recorded stack again, on the ports run.json records and with the data
 * of its state dir, so everything that was using the stack reconnects to the same addresses
 * and finds its records and schemas. Waits until it serves (as `stack up` does) and records
 * the new pid in run.json. Holds the state dir's start lock meanwhile, so two healers (a
 * `stack up` and a `hookstream start`) never start one part twice. Resolves with the new
 * process, or undefined when the part was found running (someone else started it meanwhile).
 */
export async function restartStackPart(
  part: StackPart,
  options: RestartPartOptions,
): Promise<(StartedProcess & { logFile: string }) | undefined> {
  const stateDir = path.resolve(options.stateDir);
  const signal = options.signal ?? new AbortController().signal;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  const release = await takeStartLock(stateDir, deadline, signal);
  try {
    const info = recordedUnlessStopped(stateDir);
    if (!restartableParts(info).includes(part)) throw new StackError(`${part} of this stack cannot be started again on its own`);
    if (recordedProcesses(info, stateDir)[part]?.alive) return undefined;
    await requirePortsFree(info, part);
    const started =
      part === 'postgres'
        ? await launchPostgres(info, signal)
        : part === 'jaeger'
          ? await launchJaeger(info, options.cacheDir, signal)
          : part === 'kafka'
            ? await launchBroker(info, await recordedJava(info, part), options.cacheDir, signal)
            : await launchRegistry(info, await recordedJava(info, part), options.cacheDir, signal);
    const began = Date.now();
    try {
      // `stack down` takes no lock (it must be able to stop a start that hangs): it is checked for
      // just before the new pid is recorded, and again once it serves.
      const current = recordedUnlessStopped(stateDir);
      writeRunInfo({
        ...current,
        processes: { ...current.processes, [part]: started.pid },
        logs: { ...current.logs, [part]: started.logFile },
      });
      await started.ready(deadline, signal);
      recordedUnlessStopped(stateDir);
    } catch (error) {
      await stopStackProcess(started.pid, stateDir, part === 'postgres' ? STOP_POSTGRES : STOP_JVM);
      if (signal.aborted) throw new Interrupted();
      if (readRunInfo(stateDir)?.stopping) throw new StackStoppedError(stateDir);
      throw error instanceof StackError ? error : new StackError(`${part} did not serve again: ${describeError(error)}`, { cause: error });
    }
    options.log?.(`${part}: serving again at ${partEndpoint(info, part)} with the same state (${Date.now() - began} ms)`);
    return started;
  } finally {
    release();
  }
}

/** The state dir's start lock; while another process holds it (starting or healing this stack), waits for it. */
async function takeStartLock(stateDir: string, deadline: number, signal: AbortSignal): Promise<() => void> {
  for (;;) {
    try {
      return lockStateDir(stateDir);
    } catch (error) {
      if (startInProgress(stateDir) === undefined || Date.now() > deadline) throw error;
      await sleepUnlessAborted(500, signal).catch(() => {
        throw new Interrupted();
      });
    }
  }
}

/** The part's recorded ports must be free: another program on one of them would answer in its place. */
async function requirePortsFree(info: StackRunInfo, part: StackPart): Promise<void> {
  const ports: Array<number | undefined> = {
    kafka: [info.ports.kafka, info.ports.kafkaController],
    registry: [info.ports.registry, info.ports.registryManagement],
    postgres: [info.ports.postgres],
    jaeger: [info.ports.jaegerOtlp, info.ports.jaegerUi, info.ports.jaegerGrpc],
  }[part];
  for (const port of ports.filter((p): p is number => p !== undefined)) {
    if (!(await isPortFree(port))) {
      throw new StackError(
        `cannot start ${part} again: its port ${port} is taken by another program. Free it, or run \`hookstream stack down\` then \`hookstream stack up\` (new ports: every service must restart)`,
      );
    }
  }
}

/** The JDK the stack was started with when it is still there; else the newest that runs the part. */
async function recordedJava(info: StackRunInfo, part: 'kafka' | 'registry'): Promise<JavaRuntime> {
  const recorded = (await findJavaRuntimes()).find((runtime) => runtime.executable === info.java);
  if (recorded) return recorded;
  return part === 'kafka'
    ? requireJava(MIN_JAVA.kafka, `Kafka ${STACK_VERSIONS.kafka}`)
    : requireJava(MIN_JAVA.apicurio, `Apicurio Registry ${STACK_VERSIONS.apicurio}`);
}

type Relaunched = StartedProcess & { logFile: string; ready: (deadline: number, signal: AbortSignal) => Promise<void> };

async function launchBroker(info: StackRunInfo, java: JavaRuntime, cacheDir: string, signal: AbortSignal): Promise<Relaunched> {
  const kafkaDir = path.join(info.stateDir, 'kafka');
  const { dir } = await ensureKafka(cacheDir, signal);
  const broker = await startBroker({
    java,
    kafkaDir: dir,
    dir: kafkaDir,
    port: info.ports.kafka,
    controllerPort: info.ports.kafkaController,
    signal,
  });
  const ready = (deadline: number, s: AbortSignal) =>
    waitForBroker(info.settings.KAFKA_BROKERS, path.join(kafkaDir, 'data'), {
      process: broker,
      port: info.ports.kafka,
      logFile: broker.logFile,
      deadline,
      signal: s,
    });
  return { ...broker, ready };
}

async function launchRegistry(info: StackRunInfo, java: JavaRuntime, cacheDir: string, signal: AbortSignal): Promise<Relaunched> {
  const dir = path.join(info.stateDir, 'registry');
  const { dir: apicurioDir } = await ensureApicurio(cacheDir, signal);
  const logStart = logOffset(path.join(dir, 'registry.log'));
  const registry = startRegistry({ java, apicurioDir, dir, port: info.ports.registry, managementPort: info.ports.registryManagement });
  const ready = (deadline: number, s: AbortSignal) =>
    waitForRegistry(info.settings.SCHEMA_REGISTRY_URL, {
      process: registry,
      port: info.ports.registry,
      logFile: registry.logFile,
      logStart,
      deadline,
      signal: s,
    });
  return { ...registry, ready };
}

/** Jaeger on its recorded ports (the services export to the same OTLP URL); already cached, as it ran before. Its traces were in memory: gone with it. */
async function launchJaeger(info: StackRunInfo, cacheDir: string, signal: AbortSignal): Promise<Relaunched> {
  const { jaegerOtlp: otlp, jaegerUi: ui, jaegerGrpc: grpc } = info.ports;
  const built = await ensureJaeger(cacheDir, process.env, signal);
  if (!built || otlp === undefined || ui === undefined || grpc === undefined)
    throw new StackError('Jaeger cannot be started again: it is no longer in the cache and Go is not on PATH to build it');
  // startJaeger resolves once it answers: nothing more to wait for.
  const jaeger = await startJaeger({ binary: built.binary, dir: path.join(info.stateDir, 'jaeger'), ports: { otlp, ui, grpc } });
  return { ...jaeger, ready: () => Promise.resolve() };
}

/** PostgreSQL on its recorded port with the data of its state dir (no cache or JDK involved). */
async function launchPostgres(info: StackRunInfo, signal: AbortSignal): Promise<Relaunched> {
  // A killed postmaster's children (it led their group) end once they notice, within a moment; until
  // then they hold its shared memory, and a new server on the same data directory refuses to start.
  const leftovers = Date.now() + 15_000;
  while (isGroupAlive(info.processes.postgres) && Date.now() < leftovers) {
    await sleepUnlessAborted(100, signal).catch(() => {
      throw new Interrupted();
    });
  }
  const dir = path.join(info.stateDir, 'postgres');
  const logStart = logOffset(path.join(dir, 'postgres.log'));
  const postgres = await startPostgres({ dir, port: info.ports.postgres });
  const ready = (deadline: number, signal: AbortSignal) =>
    waitForPostgres(info.ports.postgres, {
      process: postgres,
      port: info.ports.postgres,
      logFile: postgres.logFile,
      logStart,
      deadline,
      signal,
    });
  return { ...postgres, ready };
}
