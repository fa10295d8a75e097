import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { Command } from 'commander';
import { ConfigError, loadConfig, serviceSettingsSchema, sleep } from '@hookstream/shared';
import { formatTable, printLine } from '../output';
import { REPO_ROOT, STACK_ENV_FILE } from '../paths';
import { defaultCacheDir } from '../stack/artifacts';
import { sleepUnlessAborted, throwIfInterrupted, untilAborted, watchInterrupts } from '../stack/interruption';
import { PORTS_HELP, pickPort, portPreference, type PortPreference } from '../stack/ports';
import { livePids, readRunInfo, type StackSettings } from '../stack/run-info';
import { startStack, type RunningStack } from '../stack/stack';
import { removeStackEnvOf, writeStackEnv } from '../stack/stack-env';
import { defaultStateDir, localSecrets } from '../stack/state-dir';
import { startDemoPartner } from './demo-partner';
import { DEMO_PARTNER_ID, ensureDemoPartner } from './demo-setup';
import { topicSettingsSchema } from './topics';

interface ServiceSpec {
  name: string;
  entry: string;
  defaultPort: number;
}

const SERVICES: ServiceSpec[] = [
  { name: 'ingress', entry: 'services/ingress/dist/main.js', defaultPort: 8080 },
  { name: 'policy-status-consumer', entry: 'services/policy-status-consumer/dist/main.js', defaultPort: 8091 },
  { name: 'callback-sender', entry: 'services/callback-sender/dist/main.js', defaultPort: 8092 },
];

/** Exit code of a Hookstream process that refused its configuration (as the CLI's own ConfigError gives). */
const CONFIG_REFUSED = 2;

/** A child that exited 2 refused its configuration: the same exit code for `start` as a bad setting of its own. */
function refusedConfig(who: string): ConfigError {
  return new ConfigError([{ variable: who, message: 'refused its configuration (see its lines above)' }]);
}

interface RunningService {
  spec: ServiceSpec;
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** Starts one service as a child process with the same Node, its JSON log lines prefixed with its name. */
function startService(spec: ServiceSpec, port: number, env: NodeJS.ProcessEnv): RunningService {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, spec.entry)], {
    cwd: REPO_ROOT,
    env: { ...env, HTTP_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) readline.createInterface({ input: stream }).on('line', (line) => printLine(`[${spec.name}] ${line}`));
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { spec, url: `http://127.0.0.1:${port}`, child, exited };
}

async function waitUntilReady(service: RunningService, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void service.exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode === CONFIG_REFUSED) throw refusedConfig(service.spec.name);
    if (exitCode !== undefined) throw new Error(`${service.spec.name} exited while starting (see its log lines above)`);
    try {
      const response = await fetch(`${service.url}/readyz`, { signal: AbortSignal.any([signal, AbortSignal.timeout(1000)]) });
      if (response.status === 200) return;
    } catch {
      // not listening yet (or interrupted: seen below)
    }
    await sleepUnlessAborted(200, signal);
  }
  throw new Error(`${service.spec.name} was not ready at ${service.url}/readyz within ${timeoutMs} ms`);
}

async function stopService(service: RunningService): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGTERM');
  const killed = await Promise.race([service.exited.then(() => false), sleep(15_000).then(() => true)]);
  if (killed) service.child.kill('SIGKILL');
}

/** `hookstream topics ensure` as a child; an interrupt stops it. */
async function ensureTopics(env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<void> {
  const ensure = spawn(process.execPath, [path.join(REPO_ROOT, 'cli/bin/hookstream.js'), 'topics', 'ensure'], { env, stdio: 'inherit' });
  const exited = new Promise<number | null>((resolve) => ensure.once('exit', resolve));
  const code = await untilAborted(exited, signal).catch(async (error: unknown) => {
    ensure.kill('SIGTERM');
    await exited;
    throw error;
  });
  if (code === CONFIG_REFUSED) throw refusedConfig('topics ensure');
  // 3: topics whose settings drifted, reported above; the system runs anyway.
  if (code !== 0 && code !== 3) throw new Error(`topics ensure failed (exit ${code})`);
}

/** The broker and registry to use: the environment's, else the local stack running, else one started now. */
async function stackSettings(
  ports: PortPreference,
  signal: AbortSignal,
): Promise<{ settings: StackSettings; secrets: object; started?: RunningStack }> {
  const { KAFKA_BROKERS, SCHEMA_REGISTRY_URL } = process.env;
  if (KAFKA_BROKERS && SCHEMA_REGISTRY_URL) {
    printLine('using KAFKA_BROKERS and SCHEMA_REGISTRY_URL from the environment');
    return { settings: { KAFKA_BROKERS, SCHEMA_REGISTRY_URL }, secrets: {} };
  }
  const stateDir = defaultStateDir();
  const running = readRunInfo(stateDir);
  if (running && livePids(running, stateDir).length > 0) {
    printLine(`using the local stack already running from ${stateDir}`);
    return { settings: running.settings, secrets: localSecrets(stateDir) };
  }
  printLine('starting the local stack (Kafka and Apicurio Registry)');
  const started = await startStack({ stateDir, cacheDir: defaultCacheDir(), ports, log: (l) => printLine(`  ${l}`), signal });
  writeStackEnv(STACK_ENV_FILE, started.info);
  return { settings: started.info.settings, secrets: started.secrets, started };
}

/** Checks the settings `start` and its children share before anything starts (fails fast, exit 2). */
function checkSharedSettings(env: NodeJS.ProcessEnv, logLevel: string): void {
  const schema = topicSettingsSchema.extend(serviceSettingsSchema.shape);
  // Kafka and the registry may come from the stack started next: those two are checked by its children.
  loadConfig(schema.omit({ KAFKA_BROKERS: true, SCHEMA_REGISTRY_URL: true }), { ...env, LOG_LEVEL: logLevel });
}

export function startCommand(): Command {
  return new Command('start')
    .description(
      'run the whole system: local Kafka and registry, topics, the three services and a demo partner endpoint; Ctrl-C stops everything',
    )
    .option('--log-level <level>', 'LOG_LEVEL of the services', 'info')
    .addHelpText('after', PORTS_HELP)
    .action(async (opts: { logLevel: string }) => {
      const began = Date.now();
      const ports = portPreference();
      checkSharedSettings(process.env, opts.logLevel);
      // Listening from the start: a Ctrl-C at any step stops what was started so far.
      const interrupts = watchInterrupts();
      const { signal } = interrupts;
      let stack: RunningStack | undefined;
      const services: RunningService[] = [];
      let demo: Awaited<ReturnType<typeof startDemoPartner>> | undefined;
      try {
        const chosen = await stackSettings(ports, signal);
        stack = chosen.started;
        const { settings } = chosen;
        throwIfInterrupted(signal);
        // The environment's own keys win over the local stack's.
        // The demo partner listens on loopback, which the sender's SSRF guard refuses unless allowed.
        const demoAllow = { SSRF_ALLOW: '127.0.0.0/8,::1/128' };
        const env: NodeJS.ProcessEnv = { ...chosen.secrets, ...demoAllow, ...process.env, ...settings, LOG_LEVEL: opts.logLevel };

        printLine('creating topics and registering schemas');
        await ensureTopics(env, signal);
        throwIfInterrupted(signal);

        const taken = new Set<number>();
        const port = (preferred: number) => pickPort(ports === 'defaults' ? preferred : undefined, taken);
        for (const spec of SERVICES) services.push(startService(spec, await port(spec.defaultPort), env));
        demo = await startDemoPartner({ host: '127.0.0.1', port: await port(9999), log: (l) => printLine(`[demo-partner] ${l}`) });
        throwIfInterrupted(signal);
        const demoApiKey = await ensureDemoPartner(env, `${demo.url}/callbacks`);
        throwIfInterrupted(signal);
        await Promise.all(services.map((s) => waitUntilReady(s, 60_000, signal)));
        throwIfInterrupted(signal);

        printLine();
        printLine(
          formatTable([
            ['what', 'where'],
            ['ingress (partner webhooks)', `${services[0]?.url}/api/integration/partner/webhook`],
            ...services.map((s) => [`${s.spec.name} ops`, `${s.url}/metrics  /healthz  /readyz`]),
            ['demo partner endpoint', `${demo.url}/callbacks`],
            ['Kafka', settings.KAFKA_BROKERS],
            ['schema registry', settings.SCHEMA_REGISTRY_URL],
          ]),
        );
        printLine();
        printLine(`demo partner "${DEMO_PARTNER_ID}": callbacks go to ${demo.url}/callbacks (HMAC_SHA256)`);
        printLine(`its API key (x-api-key for the ingress), shown once: ${demoApiKey}`);
        printLine('send it a policy status callback: npx hookstream policy publish --file examples/events/demo-policy-active.json');
        printLine();
        printLine(`ready in ${((Date.now() - began) / 1000).toFixed(1)} s; press Ctrl-C to stop everything`);

        const reason = await Promise.race([
          interrupts.received.then((s) => `got ${s}`),
          ...services.map((s) => s.exited.then((code) => `${s.spec.name} exited (${code})`)),
          ...(stack ? [stack.unexpectedExit] : []),
        ]);
        printLine(`stopping: ${reason}`);
        if (!reason.startsWith('got')) process.exitCode = 1;
      } finally {
        await Promise.all(services.map(stopService));
        await demo?.close();
        if (stack) {
          await stack.stop();
          removeStackEnvOf(STACK_ENV_FILE, stack.info.stateDir);
        }
        printLine('stopped');
        interrupts.dispose();
      }
    });
}
