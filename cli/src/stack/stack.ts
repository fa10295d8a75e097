import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import {
  StackError,
  createKafkaClient,
  createLogger,
  describeError,
  generateKeyringValue,
  sleep,
  waitForKafkaReady,
} from '@hookstream/shared';
import { ensureApicurio, ensureKafka } from './artifacts';
import { requireJava } from './java';
import { startBroker } from './kafka-broker';
import { canConnect, pickPort } from './ports';
import { isAlive, stopProcessGroup, type StartedProcess } from './processes';
import { CCOMPAT_PATH, startRegistry } from './registry-server';
import { MIN_JAVA, STACK_VERSIONS } from './versions';

/** Where `stack up` keeps the Kafka log and the registry's database: HOOKSTREAM_STATE_DIR, else $XDG_STATE_HOME/hookstream/stack, else ~/.local/state/hookstream/stack. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOOKSTREAM_STATE_DIR) return env.HOOKSTREAM_STATE_DIR;
  const base = env.XDG_STATE_HOME ?? path.join(env.HOME ?? '/tmp', '.local', 'state');
  return path.join(base, 'hookstream', 'stack');
}

/** The settings services need to reach the stack. */
export interface StackSettings {
  KAFKA_BROKERS: string;
  SCHEMA_REGISTRY_URL: string;
}

/** What a running stack records in `<stateDir>/run.json`, read by `stack status` and `stack down`. */
export interface StackRunInfo {
  stateDir: string;
  startedAt: string;
  versions: typeof STACK_VERSIONS;
  settings: StackSettings;
  processes: { kafka: number; registry: number };
  ports: { kafka: number; kafkaController: number; registry: number; registryManagement: number };
  logs: { kafka: string; registry: string };
  java: string;
}

export interface StartStackOptions {
  stateDir: string;
  cacheDir: string;
  /** 'defaults' tries 9092/9093/8081/9000 first, 'random' takes free ports (tests, so a developer's stack is never touched). */
  ports?: 'defaults' | 'random';
  /** Progress lines for a person. */
  log?: (line: string) => void;
  /** How long both may take to become ready, in ms. Default 120000. */
  readyTimeoutMs?: number;
}

/** Keys the services need for partner secrets and API key hashes, local to one state dir. */
export interface LocalSecrets {
  HOOKSTREAM_SECRETS_KEYS: string;
  HOOKSTREAM_API_KEY_PEPPERS: string;
}

/**
 * The local stack's keys for partner secrets and API key hashes: made once per state dir (so
 * they live and die with the data they protect), in a file only the owner can read. A real
 * deployment gives them from its secret manager instead.
 */
export function localSecrets(stateDir: string): LocalSecrets {
  const file = path.join(stateDir, 'secrets.env');
  if (!existsSync(file)) {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(
      file,
      `HOOKSTREAM_SECRETS_KEYS=${generateKeyringValue('local-1')}\nHOOKSTREAM_API_KEY_PEPPERS=${generateKeyringValue('local-1')}\n`,
      { mode: 0o600 },
    );
  }
  const values = parseEnv(readFileSync(file, 'utf8'));
  return {
    HOOKSTREAM_SECRETS_KEYS: values.HOOKSTREAM_SECRETS_KEYS ?? '',
    HOOKSTREAM_API_KEY_PEPPERS: values.HOOKSTREAM_API_KEY_PEPPERS ?? '',
  };
}

export interface RunningStack {
  info: StackRunInfo;
  secrets: LocalSecrets;
  /** Resolves with a description when either process ends on its own. */
  unexpectedExit: Promise<string>;
  stop: () => Promise<void>;
}

const RUN_FILE = 'run.json';

export function readRunInfo(stateDir: string): StackRunInfo | undefined {
  const file = path.join(stateDir, RUN_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StackRunInfo;
  } catch {
    return undefined;
  }
}

/** Running processes of a recorded stack (an empty list when none is alive). */
export function livePids(info: StackRunInfo | undefined): number[] {
  return info ? Object.values(info.processes).filter(isAlive) : [];
}

function tail(file: string, lines = 25): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Size of a file now (0 when absent): where this start's lines begin in an appended log. */
function logOffset(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** What a log gained since `offset`. */
function logSince(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

async function waitForRegistry(
  url: string,
  port: number,
  process: StartedProcess,
  logFile: string,
  logStart: number,
  deadline: number,
): Promise<void> {
  let exited: string | undefined;
  void process.exited.then(({ code, signal }) => (exited = `exited with ${signal ?? code}`));
  while (Date.now() < deadline) {
    if (exited) throw new StackError(`Apicurio Registry ${exited} while starting. Last lines of ${logFile}:\n${tail(logFile)}`);
    // Another process may have taken the port between our check and the JVM's bind (then ours
    // exits 1, a moment later): only our own log saying it listens there proves the answer is ours.
    if (logSince(logFile, logStart).includes(`Listening on: http://127.0.0.1:${port}`)) {
      try {
        const response = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(2000) });
        if (response.ok && Array.isArray(await response.json())) return;
      } catch {
        // not answering yet
      }
    }
    await sleep(250);
  }
  throw new StackError(`Apicurio Registry did not answer at ${url} in time. Last lines of ${logFile}:\n${tail(logFile)}`);
}

/** The cluster id our broker's storage was formatted with. */
function ownClusterId(dataDir: string): string | undefined {
  try {
    return parseEnv(readFileSync(path.join(dataDir, 'meta.properties'), 'utf8'))['cluster.id'];
  } catch {
    return undefined;
  }
}

async function waitForBroker(
  brokers: string,
  port: number,
  dataDir: string,
  process: StartedProcess,
  logFile: string,
  deadline: number,
): Promise<void> {
  let exited: string | undefined;
  void process.exited.then(({ code, signal }) => (exited = `exited with ${signal ?? code}`));
  const kafka = createKafkaClient({
    brokers: [brokers],
    clientId: 'hookstream-stack',
    logger: createLogger({ service: 'stack', level: 'silent' }),
  });
  const expected = ownClusterId(dataDir);
  // Another process may have taken the port between our check and the JVM's bind: only a
  // broker with our storage's cluster id is ours. Checked before anything is written to it.
  for (;;) {
    if (exited) throw new StackError(`the Kafka broker ${exited} while starting. Last lines of ${logFile}:\n${tail(logFile)}`);
    if (Date.now() > deadline)
      throw new StackError(`the Kafka broker did not start on ${port} in time. Last lines of ${logFile}:\n${tail(logFile)}`);
    if (await canConnect(port)) {
      const admin = kafka.admin({ retry: { retries: 0 } });
      try {
        await admin.connect();
        const { clusterId } = await admin.describeCluster();
        if (clusterId === expected) break;
      } catch {
        // not answering metadata yet
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    }
    await sleep(250);
  }
  await waitForKafkaReady(kafka, { timeoutMs: Math.max(5000, deadline - Date.now()) });
  if (exited) throw new StackError(`the Kafka broker ${exited} while starting. Last lines of ${logFile}:\n${tail(logFile)}`);
}

/**
 * Fetches (once, into the cache) and starts a single-node KRaft Kafka broker and Apicurio
 * Registry on loopback, waits until both really serve (a group join and a transaction on
 * Kafka; the registry lists subjects), and records them in `<stateDir>/run.json`.
 */
export async function startStack(options: StartStackOptions): Promise<RunningStack> {
  const log = options.log ?? (() => undefined);
  const { stateDir } = options;
  mkdirSync(stateDir, { recursive: true });
  const previous = readRunInfo(stateDir);
  const alive = livePids(previous);
  if (alive.length > 0) {
    throw new StackError(
      `a stack is already running from ${stateDir} (pids ${alive.join(', ')}): see \`hookstream stack status\`, or stop it with \`hookstream stack down\``,
    );
  }
  rmSync(path.join(stateDir, RUN_FILE), { force: true });

  const [kafkaJava, registryJava] = await Promise.all([
    requireJava(MIN_JAVA.kafka, `Kafka ${STACK_VERSIONS.kafka}`),
    requireJava(MIN_JAVA.apicurio, `Apicurio Registry ${STACK_VERSIONS.apicurio}`),
  ]);
  const java = registryJava.major >= kafkaJava.major ? registryJava : kafkaJava; // one JDK for both when it qualifies
  log(`java: ${java.executable} (Java ${java.major})`);

  const fetchStarted = Date.now();
  const [kafkaArtifact, registryArtifact] = await Promise.all([ensureKafka(options.cacheDir), ensureApicurio(options.cacheDir)]);
  log(
    `artifacts: Kafka ${STACK_VERSIONS.kafka} ${kafkaArtifact.cached ? 'cached' : 'fetched'}, Apicurio ${STACK_VERSIONS.apicurio} ${registryArtifact.cached ? 'cached' : 'fetched'} in ${options.cacheDir} (${Date.now() - fetchStarted} ms)`,
  );

  const taken = new Set<number>();
  const useDefaults = (options.ports ?? 'defaults') === 'defaults';
  const ports = {
    kafka: await pickPort(useDefaults ? 9092 : undefined, taken),
    kafkaController: await pickPort(useDefaults ? 9093 : undefined, taken),
    registry: await pickPort(useDefaults ? 8081 : undefined, taken),
    registryManagement: await pickPort(useDefaults ? 9000 : undefined, taken),
  };
  const settings: StackSettings = {
    KAFKA_BROKERS: `127.0.0.1:${ports.kafka}`,
    SCHEMA_REGISTRY_URL: `http://127.0.0.1:${ports.registry}${CCOMPAT_PATH}`,
  };

  const broker = await startBroker({
    java,
    kafkaDir: kafkaArtifact.dir,
    dir: path.join(stateDir, 'kafka'),
    port: ports.kafka,
    controllerPort: ports.kafkaController,
  });
  const registryLogStart = logOffset(path.join(stateDir, 'registry', 'registry.log'));
  const registry = startRegistry({
    java,
    apicurioDir: registryArtifact.dir,
    dir: path.join(stateDir, 'registry'),
    port: ports.registry,
    managementPort: ports.registryManagement,
  });

  const info: StackRunInfo = {
    stateDir,
    startedAt: new Date().toISOString(),
    versions: STACK_VERSIONS,
    settings,
    processes: { kafka: broker.pid, registry: registry.pid },
    ports,
    logs: { kafka: broker.logFile, registry: registry.logFile },
    java: java.executable,
  };
  // Recorded before waiting, so `stack down` can stop a start that hangs or was interrupted.
  writeFileSync(path.join(stateDir, RUN_FILE), `${JSON.stringify(info, null, 2)}\n`);

  const stop = async () => {
    // Registry first: it may hold connections to Kafka in other storage modes.
    await stopProcessGroup(registry.pid);
    await stopProcessGroup(broker.pid);
    rmSync(path.join(stateDir, RUN_FILE), { force: true });
  };

  const started = Date.now();
  const deadline = started + (options.readyTimeoutMs ?? 120_000);
  try {
    await Promise.all([
      waitForBroker(settings.KAFKA_BROKERS, ports.kafka, path.join(stateDir, 'kafka', 'data'), broker, broker.logFile, deadline).then(() =>
        log(`kafka: ready at ${settings.KAFKA_BROKERS} (${Date.now() - started} ms)`),
      ),
      waitForRegistry(settings.SCHEMA_REGISTRY_URL, ports.registry, registry, registry.logFile, registryLogStart, deadline).then(() =>
        log(`registry: ready at ${settings.SCHEMA_REGISTRY_URL} (${Date.now() - started} ms)`),
      ),
    ]);
    // Apicurio's global default is NONE; Hookstream wants BACKWARD everywhere (each subject also sets it).
    await fetch(`${settings.SCHEMA_REGISTRY_URL}/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: 'BACKWARD' }),
    });
  } catch (error) {
    await stop();
    throw error instanceof StackError
      ? error
      : new StackError(`the local stack did not become ready: ${describeError(error)}`, { cause: error });
  }

  const unexpectedExit = Promise.race([
    broker.exited.then(({ code, signal }) => `the Kafka broker exited (${signal ?? code}); see ${broker.logFile}`),
    registry.exited.then(({ code, signal }) => `the registry exited (${signal ?? code}); see ${registry.logFile}`),
  ]);
  return { info, secrets: localSecrets(stateDir), unexpectedExit, stop };
}

/** Stops the stack recorded in `stateDir`, if any. Resolves with what was stopped. */
export async function stopStack(stateDir: string): Promise<string[]> {
  const info = readRunInfo(stateDir);
  if (!info) return [];
  const stopped: string[] = [];
  for (const [name, pid] of [
    ['registry', info.processes.registry],
    ['kafka', info.processes.kafka],
  ] as const) {
    const outcome = await stopProcessGroup(pid);
    if (outcome !== 'absent') stopped.push(`${name} (pid ${pid}, ${outcome})`);
  }
  rmSync(path.join(stateDir, RUN_FILE), { force: true });
  return stopped;
}

/** A throwaway state folder for a stack that lives only as long as one run (tests). */
export function makeEphemeralStateDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'hookstream-stack-'));
}

/** Writes the settings as a dotenv file (`stack.env`), readable by its owner only: it holds the local keys. */
export function writeStackEnv(file: string, info: StackRunInfo): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const secrets = localSecrets(info.stateDir);
  const lines = [
    `# Written by \`hookstream stack up\` at ${info.startedAt}; state in ${info.stateDir}.`,
    `KAFKA_BROKERS=${info.settings.KAFKA_BROKERS}`,
    `SCHEMA_REGISTRY_URL=${info.settings.SCHEMA_REGISTRY_URL}`,
    '# Local-only keys for partner secrets and API key hashes (made once per state dir).',
    `HOOKSTREAM_SECRETS_KEYS=${secrets.HOOKSTREAM_SECRETS_KEYS}`,
    `HOOKSTREAM_API_KEY_PEPPERS=${secrets.HOOKSTREAM_API_KEY_PEPPERS}`,
    '',
  ];
  writeFileSync(file, lines.join('\n'), { mode: 0o600 });
  chmodSync(file, 0o600);
}
