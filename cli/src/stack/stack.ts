import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { StackError, describeError } from '@hookstream/errors';
import { ensureApicurio, ensureKafka, type FetchedArtifact } from './artifacts';
import { Interrupted, allOrFirstFailure, throwIfInterrupted } from './interruption';
import { requireJava, type JavaRuntime } from './java';
import { startLocalJaeger, type NoJaeger, type RunningJaeger } from './jaeger';
import { pickOtherNodePorts, type NodePorts } from './kafka-cluster';
import { startKafka } from './kafka-start';
import { logOffset } from './logs';
import { pickPort, type PortPreference } from './ports';
import { postgresUrl, startPostgres, waitForPostgres } from './postgres-server';
import { type StartedProcess } from './processes';
import { waitForRegistry } from './readiness';
import { CCOMPAT_PATH, setBackwardCompatibility, startRegistry } from './registry-server';
import { livePids, readRunInfo, removeRunInfo, writeRunInfo, type StackRunInfo, type StackSettings } from './run-info';
import { stopProcesses, type StoppedProcess } from './stack-stop';
import { localSecrets, lockStateDir, type LocalSecrets } from './state-dir';
export { stopStack, type StoppedProcess } from './stack-stop';
import { MIN_JAVA, STACK_VERSIONS } from './versions';

export interface StartStackOptions {
  stateDir: string;
  cacheDir: string;
  /** 'defaults' tries 9092/9093/8081/9000/5432 first, 'random' takes free ports (tests, so a developer's stack is never touched). Default 'defaults'. */
  ports?: PortPreference;
  /** Progress lines for a person. Default: none. */
  log?: (line: string) => void;
  /** How long all may take to become ready, in ms. Default 120000. */
  readyTimeoutMs?: number;
  /** An interrupt (Ctrl-C): what was started is stopped, run.json removed, and {@link Interrupted} thrown. Default: none. */
  signal?: AbortSignal;
  /** Kafka nodes: 1, or 3 for a cluster with three replicas of every topic (kafka-cluster.ts). Default 1. */
  brokers?: number;
  /**
   * Whether to run Jaeger, the trace store, beside it (jaeger.ts; built once when not cached): what
   * `stack up` and `start` do, and `stack exec --ephemeral` only when asked (exec.ts). Default false,
   * so a test's own stack runs none.
   */
  traces?: boolean;
  /** The environment deciding whether traces go elsewhere (OTEL_EXPORTER_OTLP_ENDPOINT) and where Jaeger is. Default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface RunningStack {
  info: StackRunInfo;
  secrets: LocalSecrets;
  /** Resolves with a description when any of its processes ends on its own. */
  unexpectedExit: Promise<string>;
  /** Stops its processes (registry first) and removes run.json. */
  stop: () => Promise<StoppedProcess[]>;
  /** Lets this process end while the stack runs on (`stack up --detach`); until then its processes keep it alive. */
  detach: () => void;
}

/**
 * Fetches (once, into the cache) and starts a single-node KRaft Kafka broker, Apicurio
 * Registry and PostgreSQL on loopback, waits until all really serve (a group join and a
 * transaction on Kafka; the registry lists subjects; PostgreSQL answers `select 1`), then
 * Jaeger (unless `traces` is false; never failing the stack), and records them in
 * `<stateDir>/run.json`. The state
 * dir is locked while this runs, so two starts on one dir cannot collide.
 */
export async function startStack(options: StartStackOptions): Promise<RunningStack> {
  const stateDir = path.resolve(options.stateDir);
  const signal = options.signal ?? new AbortController().signal;
  const log = options.log ?? (() => undefined);
  mkdirSync(stateDir, { recursive: true });
  const releaseLock = lockStateDir(stateDir);
  try {
    const alive = livePids(readRunInfo(stateDir), stateDir);
    if (alive.length > 0) {
      throw new StackError(
        `a stack is already running from ${stateDir} (pids ${alive.join(', ')}): see \`hookstream stack status\`, or stop it with \`hookstream stack down\``,
      );
    }
    removeRunInfo(stateDir);
    const java = await chooseJava(log);
    throwIfInterrupted(signal);
    const artifacts = await fetchArtifacts(options.cacheDir, signal, log);
    throwIfInterrupted(signal);
    const ports = await pickStackPorts(options.ports ?? 'defaults');
    const otherNodes = await pickOtherNodePorts(options.brokers ?? 1, options.ports ?? 'defaults', new Set(Object.values(ports)));
    throwIfInterrupted(signal);
    return await launch({
      stateDir,
      java,
      ...artifacts,
      ports,
      otherNodes,
      readyTimeoutMs: options.readyTimeoutMs ?? 120_000,
      signal,
      log,
      traces: options.traces ?? false,
      cacheDir: options.cacheDir,
      env: options.env ?? process.env,
    });
  } catch (error) {
    // Whatever a step failed with once Ctrl-C was pressed (a killed Maven, a refused connection), the cause is the interrupt.
    if (signal.aborted) throw new Interrupted();
    throw error;
  } finally {
    releaseLock();
  }
}

/** One JDK for both when it qualifies for both. */
async function chooseJava(log: (line: string) => void): Promise<JavaRuntime> {
  const [kafkaJava, registryJava] = await Promise.all([
    requireJava(MIN_JAVA.kafka, `Kafka ${STACK_VERSIONS.kafka}`),
    requireJava(MIN_JAVA.apicurio, `Apicurio Registry ${STACK_VERSIONS.apicurio}`),
  ]);
  const java = registryJava.major >= kafkaJava.major ? registryJava : kafkaJava;
  log(`java: ${java.executable} (Java ${java.major})`);
  return java;
}

async function fetchArtifacts(
  cacheDir: string,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<{ kafkaDir: string; apicurioDir: string }> {
  const started = Date.now();
  const [kafka, registry] = await allOrFirstFailure<[FetchedArtifact, FetchedArtifact]>(
    [(s) => ensureKafka(cacheDir, s), (s) => ensureApicurio(cacheDir, s)],
    signal,
  );
  log(
    `artifacts: Kafka ${STACK_VERSIONS.kafka} ${kafka.cached ? 'cached' : 'fetched'}, Apicurio ${STACK_VERSIONS.apicurio} ${registry.cached ? 'cached' : 'fetched'} in ${cacheDir} (${Date.now() - started} ms)`,
  );
  return { kafkaDir: kafka.dir, apicurioDir: registry.dir };
}

async function pickStackPorts(preference: PortPreference): Promise<StackRunInfo['ports']> {
  const taken = new Set<number>();
  const preferred = (port: number) => (preference === 'defaults' ? port : undefined);
  return {
    kafka: await pickPort(preferred(9092), taken),
    kafkaController: await pickPort(preferred(9093), taken),
    registry: await pickPort(preferred(8081), taken),
    registryManagement: await pickPort(preferred(9000), taken),
    postgres: await pickPort(preferred(5432), taken),
  };
}

interface Launch {
  stateDir: string;
  java: JavaRuntime;
  kafkaDir: string;
  apicurioDir: string;
  ports: StackRunInfo['ports'];
  /** Nodes 2.. of a cluster; none for a single broker. */
  otherNodes: NodePorts[];
  readyTimeoutMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
  traces: boolean;
  cacheDir: string;
  env: NodeJS.ProcessEnv;
}

/** Starts the JVMs and PostgreSQL and waits until all serve; on any failure (or an interrupt) stops what it started. */
async function launch(l: Launch): Promise<RunningStack> {
  const { stateDir, ports, signal, log } = l;
  const kafkaNodes = [{ port: ports.kafka, controllerPort: ports.kafkaController }, ...l.otherNodes];
  const started: Array<[StoppedProcess['name'], StartedProcess]> = [];
  // Last started, first stopped: the registry may hold connections to Kafka in other storage modes.
  let stopping = false;
  const stop = () => {
    stopping = true;
    return stopProcesses(
      stateDir,
      started.toReversed().map(([name, p]) => ({ name, pid: p.pid })),
    );
  };
  // PostgreSQL (its initdb takes 2-3 s on a first start) is prepared while Kafka formats and starts.
  const postgresDir = path.join(stateDir, 'postgres');
  const postgresLogStart = logOffset(path.join(postgresDir, 'postgres.log'));
  const postgresStarting = startPostgres({ dir: postgresDir, port: ports.postgres }).then((p) => {
    started.push(['postgres', p]);
    return p;
  });
  // Awaited below, or after a failure of Kafka's start: never left unhandled meanwhile.
  void postgresStarting.catch(() => undefined);
  try {
    const kafka = await startKafka({ java: l.java, kafkaDir: l.kafkaDir, stateDir, nodes: kafkaNodes, signal }, (name, p) =>
      started.push([name, p]),
    );
    throwIfInterrupted(signal);
    const registryLogStart = logOffset(path.join(stateDir, 'registry', 'registry.log'));
    const registry = startRegistry({
      java: l.java,
      apicurioDir: l.apicurioDir,
      dir: path.join(stateDir, 'registry'),
      port: ports.registry,
      managementPort: ports.registryManagement,
    });
    started.push(['registry', registry]);
    const postgres = await postgresStarting;

    const settings: StackSettings = {
      KAFKA_BROKERS: kafka.brokers,
      SCHEMA_REGISTRY_URL: `http://127.0.0.1:${ports.registry}${CCOMPAT_PATH}`,
      DATABASE_URL: postgresUrl(ports.postgres),
    };
    const info: StackRunInfo = {
      stateDir,
      startedAt: new Date().toISOString(),
      versions: STACK_VERSIONS,
      settings,
      processes: { kafka: kafka.first.pid, registry: registry.pid, postgres: postgres.pid },
      ports,
      logs: { kafka: kafka.first.logFile, registry: registry.logFile, postgres: postgres.logFile },
      java: l.java.executable,
      ...(kafka.cluster && { cluster: kafka.cluster }),
    };
    writeRunInfo(info);

    const began = Date.now();
    const deadline = began + l.readyTimeoutMs;
    // The first to fail (a process died, a deadline passed) ends the other waits at once.
    await allOrFirstFailure<[void, void, void]>(
      [
        async (s) => {
          await kafka.waitUntilReady(deadline, s);
          log(`kafka: ready at ${settings.KAFKA_BROKERS} (${Date.now() - began} ms)`);
        },
        async (s) => {
          await waitForRegistry(settings.SCHEMA_REGISTRY_URL, {
            process: registry,
            port: ports.registry,
            logFile: registry.logFile,
            logStart: registryLogStart,
            deadline,
            signal: s,
          });
          log(`registry: ready at ${settings.SCHEMA_REGISTRY_URL} (${Date.now() - began} ms)`);
        },
        async (s) => {
          const starting = { process: postgres, port: ports.postgres, logFile: postgres.logFile, logStart: postgresLogStart };
          await waitForPostgres(ports.postgres, { ...starting, deadline, signal: s });
          log(`postgres: ready at 127.0.0.1:${ports.postgres} (${Date.now() - began} ms)`);
        },
      ],
      signal,
    );
    await setBackwardCompatibility(settings.SCHEMA_REGISTRY_URL, signal);
    throwIfInterrupted(signal);

    // Last, once the rest serves: a trace store missing or failing never fails the stack (jaeger.ts).
    const jaeger = l.traces
      ? await startLocalJaeger({ cacheDir: l.cacheDir, dir: path.join(stateDir, 'jaeger'), env: l.env, log, signal })
      : { none: 'not asked for (`stack exec --ephemeral` runs one only with --traces)' };
    if ('pid' in jaeger) started.push(['jaeger', jaeger]);
    recordTraces(info, jaeger);
    writeRunInfo(info);
    throwIfInterrupted(signal);

    // Jaeger is not among them: a trace store that died (out of memory under a bench, say) never
    // stops the broker, the registry and PostgreSQL; it is said, and `stack up` starts it again.
    if ('pid' in jaeger) {
      void jaeger.exited.then(({ code, signal }) => {
        if (!stopping)
          log(
            `Jaeger exited (${signal ?? code}); traces are not kept until \`hookstream stack up\` starts it again; see ${jaeger.logFile}`,
          );
      });
    }
    const unexpectedExit = Promise.race([
      kafka.exited,
      registry.exited.then(({ code, signal }) => `the registry exited (${signal ?? code}); see ${registry.logFile}`),
      postgres.exited.then(({ code, signal }) => `PostgreSQL exited (${signal ?? code}); see ${postgres.logFile}`),
    ]);
    const detach = () => started.forEach(([, p]) => p.detach());
    return { info, secrets: localSecrets(stateDir), unexpectedExit, stop, detach };
  } catch (error) {
    await postgresStarting.catch(() => undefined);
    await stop();
    throw error instanceof StackError || error instanceof Interrupted
      ? error
      : new StackError(`the local stack did not become ready: ${describeError(error)}`, { cause: error });
  }
}

/** Records in `info` the stack's Jaeger (its pid, ports, log and URLs), or why it runs without one. */
function recordTraces(info: StackRunInfo, jaeger: RunningJaeger | NoJaeger): void {
  if ('none' in jaeger) {
    info.traces = jaeger;
    return;
  }
  info.processes.jaeger = jaeger.pid;
  info.ports = { ...info.ports, jaegerOtlp: jaeger.ports.otlp, jaegerUi: jaeger.ports.ui, jaegerGrpc: jaeger.ports.grpc };
  info.logs.jaeger = jaeger.logFile;
  info.traces = { otlpUrl: jaeger.otlpUrl, uiUrl: jaeger.uiUrl };
}
