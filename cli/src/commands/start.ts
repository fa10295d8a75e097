import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { Command } from 'commander';
import { sleep } from '@hookstream/shared';
import { formatTable, printLine } from '../output';
import { REPO_ROOT, STACK_ENV_FILE } from '../paths';
import { defaultCacheDir } from '../stack/artifacts';
import { pickPort } from '../stack/ports';
import {
  defaultStateDir,
  livePids,
  localSecrets,
  readRunInfo,
  startStack,
  writeStackEnv,
  type RunningStack,
  type StackSettings,
} from '../stack/stack';
import { startDemoPartner } from './demo-partner';
import { DEMO_PARTNER_ID, ensureDemoPartner } from './demo-setup';

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

async function waitUntilReady(service: RunningService, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void service.exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`${service.spec.name} exited while starting (see its log lines above)`);
    try {
      const response = await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${service.spec.name} was not ready at ${service.url}/readyz within ${timeoutMs} ms`);
}

async function stopService(service: RunningService): Promise<void> {
  if (service.child.exitCode !== null) return;
  service.child.kill('SIGTERM');
  const killed = await Promise.race([service.exited.then(() => false), sleep(15_000).then(() => true)]);
  if (killed) service.child.kill('SIGKILL');
}

export function startCommand(): Command {
  return new Command('start')
    .description(
      'run the whole system: local Kafka and registry, topics, the three services and a demo partner endpoint; Ctrl-C stops everything',
    )
    .option('--log-level <level>', 'LOG_LEVEL of the services', 'info')
    .action(async (opts: { logLevel: string }) => {
      const began = Date.now();
      const interrupted = new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      let stack: RunningStack | undefined;
      const services: RunningService[] = [];
      let demo: Awaited<ReturnType<typeof startDemoPartner>> | undefined;
      try {
        let settings: StackSettings;
        let secrets = {};
        if (process.env.KAFKA_BROKERS && process.env.SCHEMA_REGISTRY_URL) {
          settings = { KAFKA_BROKERS: process.env.KAFKA_BROKERS, SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL };
          printLine('using KAFKA_BROKERS and SCHEMA_REGISTRY_URL from the environment');
        } else {
          const stateDir = defaultStateDir();
          const running = readRunInfo(stateDir);
          if (running && livePids(running).length > 0) {
            settings = running.settings;
            secrets = localSecrets(stateDir);
            printLine(`using the local stack already running from ${stateDir}`);
          } else {
            printLine('starting the local stack (Kafka and Apicurio Registry)');
            stack = await startStack({ stateDir, cacheDir: defaultCacheDir(), log: (l) => printLine(`  ${l}`) });
            writeStackEnv(STACK_ENV_FILE, stack.info);
            settings = stack.info.settings;
            secrets = stack.secrets;
          }
        }
        // The environment's own keys win over the local stack's.
        const env: NodeJS.ProcessEnv = { ...secrets, ...process.env, ...settings, LOG_LEVEL: opts.logLevel };

        printLine('creating topics and registering schemas');
        const ensure = spawn(process.execPath, [path.join(REPO_ROOT, 'cli/bin/hookstream.js'), 'topics', 'ensure'], {
          env,
          stdio: 'inherit',
        });
        const ensureCode = await new Promise<number | null>((resolve) => ensure.once('exit', resolve));
        if (ensureCode !== 0 && ensureCode !== 3) throw new Error(`topics ensure failed (exit ${ensureCode})`);

        const taken = new Set<number>();
        for (const spec of SERVICES) services.push(startService(spec, await pickPort(spec.defaultPort, taken), env));
        demo = await startDemoPartner({
          host: '127.0.0.1',
          port: await pickPort(9999, taken),
          log: (l) => printLine(`[demo-partner] ${l}`),
        });
        const demoApiKey = await ensureDemoPartner(env, `${demo.url}/callbacks`);
        await Promise.all(services.map((s) => waitUntilReady(s, 60_000)));

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
        printLine();
        printLine(`ready in ${((Date.now() - began) / 1000).toFixed(1)} s; press Ctrl-C to stop everything`);

        const reason = await Promise.race([
          interrupted.then((s) => `got ${s}`),
          ...services.map((s) => s.exited.then((code) => `${s.spec.name} exited (${code})`)),
          ...(stack ? [stack.unexpectedExit] : []),
        ]);
        printLine(`stopping: ${reason}`);
        if (!reason.startsWith('got')) process.exitCode = 1;
      } finally {
        await Promise.all(services.map(stopService));
        await demo?.close();
        if (stack) await stack.stop();
        printLine('stopped');
      }
    });
}
