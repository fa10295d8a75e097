import { spawn } from 'node:child_process';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig, serviceSettingsSchema, untilReady } from '@hookstream/runtime';
import { formatTable, printLine } from '../output';
import { REPO_ROOT, STACK_ENV_FILE } from '../paths';
import { defaultCacheDir } from '../stack/artifacts';
import { startLocalJaeger, type RunningJaeger } from '../stack/jaeger';
import { untilStackServes } from '../stack/health';
import { throwIfInterrupted, untilAborted, watchInterrupts } from '../stack/interruption';
import { PORTS_HELP, pickPort, portPreference, type PortPreference } from '../stack/ports';
import { livePids, readRunInfo, traceSettings, type StackRunInfo, type StackSettings } from '../stack/run-info';
import { startStack, stopStack, type RunningStack } from '../stack/stack';
import { removeStackEnvOf, writeStackEnv } from '../stack/stack-env';
import { defaultStateDir, localSecrets } from '../stack/state-dir';
import { DELIVERY_LOG_DATABASE, ensureDatabase, withDatabase } from '../stack/postgres-server';
import { type ServiceSpec } from '../supervisor/service-process';
import { CONFIG_REFUSED, refusedConfig, superviseService, type SupervisedService } from '../supervisor/service-supervision';
import { StackAvailability, superviseStack } from '../supervisor/stack-supervision';
import { demoOperatorToken, seedDemoHistory } from './demo-history';
import { startDemoPartner } from './demo-partner';
import { DEMO_PARTNER_ID, ensureDemoPartner } from './demo-setup';
import { topicSettingsSchema } from './topics';

const SERVICES: ServiceSpec[] = [
  { name: 'ingress', entry: 'services/ingress/dist/main.js', defaultPort: 8080, defaultOpsPort: 9080 },
  { name: 'policy-status-consumer', entry: 'services/policy-status-consumer/dist/main.js', defaultPort: 8091 },
  { name: 'callback-sender', entry: 'services/callback-sender/dist/main.js', defaultPort: 8092 },
  { name: 'document-fetcher', entry: 'services/document-fetcher/dist/main.js', defaultPort: 8093 },
  { name: 'delivery-log', entry: 'services/delivery-log/dist/main.js', defaultPort: 8094, defaultOpsPort: 9094 },
];

/** Lines of the supervisor: what crashed, how, and when it is back. */
const sayAsSupervisor = (line: string) => printLine(`supervisor: ${line}`);

/** Resolves once the service answers /readyz with 200 (after restarts too), or fails after `timeoutMs`. */
async function readyWithin(service: SupervisedService, timeoutMs: number, signal: AbortSignal): Promise<void> {
  try {
    await untilReady(service.opsUrl, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
  } catch (error) {
    throwIfInterrupted(signal);
    throw new Error(`${service.spec.name} was not ready at ${service.opsUrl}/readyz within ${timeoutMs} ms`, { cause: error });
  }
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

/** The broker, registry and PostgreSQL to use: the environment's, else the local stack running, else one started now. */
async function stackSettings(
  ports: PortPreference,
  signal: AbortSignal,
): Promise<{ settings: StackSettings; secrets: object; stateDir?: string; started?: RunningStack; traces?: StackRunInfo['traces'] }> {
  const { KAFKA_BROKERS, SCHEMA_REGISTRY_URL } = process.env;
  if (KAFKA_BROKERS && SCHEMA_REGISTRY_URL) {
    printLine('using KAFKA_BROKERS and SCHEMA_REGISTRY_URL from the environment');
    return { settings: { KAFKA_BROKERS, SCHEMA_REGISTRY_URL }, secrets: {} };
  }
  const stateDir = defaultStateDir();
  const running = readRunInfo(stateDir);
  if (running && livePids(running, stateDir).length > 0) {
    printLine(`using the local stack already running from ${stateDir}`);
    await untilStackServes(running.settings, stateDir, signal, printLine);
    return { settings: running.settings, secrets: localSecrets(stateDir), stateDir, traces: running.traces };
  }
  printLine('starting the local stack (Kafka, Apicurio Registry, PostgreSQL and Jaeger)');
  const started = await startStack({ stateDir, cacheDir: defaultCacheDir(), ports, log: (l) => printLine(`  ${l}`), signal, traces: true });
  writeStackEnv(STACK_ENV_FILE, started.info);
  return { settings: started.info.settings, secrets: started.secrets, stateDir, started, traces: started.info.traces };
}

/** A postgres:// URL without its password, for the summary ("(unset)" when there is none). */
function redacted(url: string | undefined): string {
  if (!url) return '(unset)';
  const shown = new URL(url);
  if (shown.password) shown.password = '***';
  return shown.toString();
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
      'run the whole system: local Kafka, registry, PostgreSQL and Jaeger, topics, the five services and a demo partner endpoint; Ctrl-C stops everything',
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
      let stackSupervision: ReturnType<typeof superviseStack> | undefined;
      const services: SupervisedService[] = [];
      let demo: Awaited<ReturnType<typeof startDemoPartner>> | undefined;
      // Only with the environment's Kafka and registry: a local stack runs its own Jaeger.
      let ownJaeger: RunningJaeger | undefined;
      try {
        const chosen = await stackSettings(ports, signal);
        stack = chosen.started;
        const { settings } = chosen;
        throwIfInterrupted(signal);
        // The environment's own keys win over the local stack's.
        // The demo partner listens on loopback, which the sender's SSRF guard refuses unless allowed.
        const demoAllow = { SSRF_ALLOW: '127.0.0.0/8,::1/128' };
        // The document-fetcher stores in a local directory beside the stack's state (docs/documents.md).
        const documents = { DOCUMENT_STORAGE: 'local', DOCUMENT_STORAGE_DIR: path.join(path.dirname(defaultStateDir()), 'documents') };
        const env: NodeJS.ProcessEnv = {
          ...chosen.secrets,
          ...demoAllow,
          ...documents,
          ...process.env,
          ...settings,
          LOG_LEVEL: opts.logLevel,
        };
        // Jaeger, the trace store: the services export their spans to it (docs/tracing.md). The local
        // stack's (stack.ts); with the environment's Kafka and registry, one of start's own, started the same way.
        let traces = chosen.traces;
        if (!chosen.stateDir) {
          const started = await startLocalJaeger({
            cacheDir: defaultCacheDir(),
            dir: path.join(path.dirname(defaultStateDir()), 'jaeger'),
            env,
            log: printLine,
            signal,
          });
          ownJaeger = 'pid' in started ? started : undefined;
          traces = 'pid' in started ? { otlpUrl: started.otlpUrl, uiUrl: started.uiUrl } : started;
        }
        // The console links each delivery's, attempt's and webhook's trace there, unless the environment names another store.
        for (const [name, value] of Object.entries(traceSettings({ traces }))) env[name] ||= value;
        throwIfInterrupted(signal);
        // The delivery log: a database of its own on the services' server (docs/delivery-log.md), unless the environment names one.
        if (!env.DELIVERY_LOG_DATABASE_URL && env.DATABASE_URL) {
          env.DELIVERY_LOG_DATABASE_URL = withDatabase(env.DATABASE_URL, DELIVERY_LOG_DATABASE);
          await ensureDatabase(env.DELIVERY_LOG_DATABASE_URL, DELIVERY_LOG_DATABASE);
        }

        printLine('creating topics and registering schemas');
        await ensureTopics(env, signal);
        throwIfInterrupted(signal);

        // From here on a crash is met with a restart, and only a process given up on (or a refused configuration) ends the run.
        let fail: (error: unknown) => void = () => undefined;
        const failure = new Promise<never>((_resolve, reject) => (fail = reject));
        // Seen by the races below; it also ends the waits for readiness, which would keep this process alive.
        const failed = new AbortController();
        failure.catch((error: unknown) => failed.abort(error));
        const availability = new StackAvailability();
        if (chosen.stateDir) {
          stackSupervision = superviseStack({ stateDir: chosen.stateDir, cacheDir: defaultCacheDir(), availability, say: sayAsSupervisor });
          stackSupervision.done.catch(fail);
        }
        const taken = new Set<number>();
        const port = (preferred: number) => pickPort(ports === 'defaults' ? preferred : undefined, taken);
        for (const spec of SERVICES) {
          const listeners = {
            port: await port(spec.defaultPort),
            ...(spec.defaultOpsPort ? { opsPort: await port(spec.defaultOpsPort) } : {}),
          };
          const service = superviseService(spec, listeners, env, { dependency: availability, say: sayAsSupervisor });
          service.done.catch(fail);
          services.push(service);
        }
        const orFailure = <T>(work: Promise<T>) => Promise.race([work, failure]);

        const demoPort = await port(9999);
        demo = await orFailure(startDemoPartner({ host: '127.0.0.1', port: demoPort, log: (l) => printLine(`[demo-partner] ${l}`) }));
        throwIfInterrupted(signal);
        const demoApiKey = await orFailure(ensureDemoPartner(env, `${demo.url}/callbacks`));
        throwIfInterrupted(signal);
        const starting = AbortSignal.any([signal, failed.signal]);
        await orFailure(Promise.all(services.map((s) => readyWithin(s, 60_000, starting))));
        throwIfInterrupted(signal);

        const serviceUrl = (name: string) => services.find((s) => s.spec.name === name)?.url ?? '';
        const ingressUrl = `${services[0]?.url}/api/integration/partner/webhook`;
        const [operatorToken] = await orFailure(
          Promise.all([demoOperatorToken(env), seedDemoHistory(env, ingressUrl, demoApiKey, `${demo.url}/documents`)]),
        );
        printLine();
        printLine(
          formatTable([
            ['what', 'where'],
            ['console', `${serviceUrl('delivery-log')}/console/`],
            ['ingress (partner webhooks)', ingressUrl],
            ['partner API (delivery log)', `${serviceUrl('delivery-log')}/api/portal/v1  (spec: /openapi.json)`],
            ['operator API (delivery log)', `${serviceUrl('delivery-log')}/api/admin/v1  (token: hookstream operators create)`],
            // The ingress's and the delivery log's on a port apart from their API's (docs/operations.md).
            ...services.map((s) => [`${s.spec.name} ops`, `${s.opsUrl}/metrics  /healthz  /readyz`]),
            ['demo partner endpoint', `${demo.url}/callbacks`],
            ['documents stored in', env.DOCUMENT_STORAGE === 'local' ? (env.DOCUMENT_STORAGE_DIR ?? '') : `s3://${env.DOCUMENT_S3_BUCKET}`],
            ['state and delivery log stored in', `PostgreSQL: ${redacted(env.DATABASE_URL)}, ${redacted(env.DELIVERY_LOG_DATABASE_URL)}`],
            ['Kafka', settings.KAFKA_BROKERS],
            ['schema registry', settings.SCHEMA_REGISTRY_URL],
            ['traces (Jaeger UI)', !traces ? 'none' : 'uiUrl' in traces ? traces.uiUrl : `none: ${traces.none}`],
          ]),
        );
        printLine();
        printLine(`demo partner "${DEMO_PARTNER_ID}": callbacks go to ${demo.url}/callbacks (HMAC_SHA256)`);
        printLine(`its API key (x-api-key for the ingress), shown once: ${demoApiKey}`);
        printLine('send it a policy status callback: npx hookstream policy publish --file examples/events/demo-policy-active.json');
        printLine(`console: ${serviceUrl('delivery-log')}/console/  sign in as an operator with ${operatorToken}`);
        printLine('  (or as the demo partner with its API key above); it already has a few callbacks, one of them retrying');
        printLine();
        printLine(
          `ready in ${((Date.now() - began) / 1000).toFixed(1)} s; a crashed service${chosen.stateDir ? ', broker, registry or PostgreSQL' : ''} is restarted; press Ctrl-C to stop everything`,
        );

        // Only an interrupt ends the run well; a failure (a process given up on) is thrown, and said by the CLI once all is stopped.
        const got = await Promise.race([interrupts.received, failure]);
        printLine(`stopping: got ${got}`);
      } catch (error) {
        if (!signal.aborted) printLine('stopping everything');
        throw error;
      } finally {
        stackSupervision?.stop();
        await Promise.all(services.map((s) => s.stop()));
        await demo?.close();
        await ownJaeger?.stop();
        if (stack) {
          // From run.json: a broker or registry started again since has another pid than the one started here.
          await stopStack(stack.info.stateDir);
          removeStackEnvOf(STACK_ENV_FILE, stack.info.stateDir);
        }
        printLine('stopped');
        interrupts.dispose();
      }
    });
}
