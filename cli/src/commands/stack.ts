import { rmSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { StackError } from '@hookstream/errors';
import { formatTable, printLine } from '../output';
import { STACK_ENV_FILE } from '../paths';
import { defaultCacheDir } from '../stack/artifacts';
import { execWithStack } from '../stack/exec';
import { markStopping } from '../stack/heal';
import { healStack } from './stack-heal';
import { stackStatus } from './stack-status';
import { throwIfInterrupted, watchInterrupts } from '../stack/interruption';
import { parseBrokerCount } from '../stack/kafka-cluster';
import { PORTS_HELP, portPreference } from '../stack/ports';
import { livePids, readRunInfo, traceSettings } from '../stack/run-info';
import { startStack, stopStack, type RunningStack, type StoppedProcess } from '../stack/stack';
import { removeStackEnvOf, writeStackEnv } from '../stack/stack-env';
import { defaultStateDir, startInProgress, wipeRefusal } from '../stack/state-dir';
import { ExitCodes } from '../exit-codes';

const stateDirOption = () =>
  new Option('--state-dir <dir>', 'where the Kafka log, registry database and PostgreSQL data live')
    .default(defaultStateDir(), "$HOOKSTREAM_STATE_DIR or this clone's ~/.local/state/hookstream/<clone>/stack")
    .argParser((dir) => path.resolve(dir));
const cacheDirOption = () =>
  new Option('--cache-dir <dir>', 'where fetched Kafka and Apicurio builds are kept').default(
    defaultCacheDir(),
    '$HOOKSTREAM_CACHE_DIR or ~/.cache/hookstream',
  );

const brokersOption = () =>
  new Option('--brokers <count>', 'Kafka nodes: 1, or 3 for a cluster (3 replicas of every topic, min.insync.replicas 2)')
    .env('HOOKSTREAM_BROKERS')
    .argParser((count) => parseBrokerCount(count, '--brokers (or HOOKSTREAM_BROKERS)'));

function printSettings(stack: RunningStack): void {
  const { info } = stack;
  printLine();
  printLine(
    formatTable([
      ['KAFKA_BROKERS', info.settings.KAFKA_BROKERS],
      ['SCHEMA_REGISTRY_URL', info.settings.SCHEMA_REGISTRY_URL],
      ['DATABASE_URL', info.settings.DATABASE_URL ?? ''],
      ...Object.entries(traceSettings(info)),
    ]),
  );
  printLine();
  printLine(`saved to ${STACK_ENV_FILE}; state in ${info.stateDir}`);
  if (info.traces) printLine('uiUrl' in info.traces ? `traces: Jaeger UI at ${info.traces.uiUrl}` : `traces: none (${info.traces.none})`);
  printLine(`logs: ${[info.logs.kafka, info.logs.registry, info.logs.postgres, info.logs.jaeger].filter(Boolean).join(', ')}`);
}

/** "registry (pid 12, stopped), kafka (pid 11, killed)": what was running and how it ended. */
function describeStopped(stopped: StoppedProcess[]): string {
  return stopped
    .filter((p) => p.outcome !== 'absent')
    .map((p) => `${p.name} (pid ${p.pid}, ${p.outcome})`)
    .join(', ');
}

async function stackUp(opts: { detach?: boolean; stateDir: string; cacheDir: string; brokers?: number }): Promise<void> {
  const { KAFKA_BROKERS, SCHEMA_REGISTRY_URL } = process.env;
  if (KAFKA_BROKERS && SCHEMA_REGISTRY_URL) {
    // Settings from the environment win everywhere (services, `start`, `stack exec`): nothing to start.
    printLine(`using KAFKA_BROKERS=${KAFKA_BROKERS} and SCHEMA_REGISTRY_URL=${SCHEMA_REGISTRY_URL} from the environment; nothing started`);
    return;
  }
  const running = readRunInfo(opts.stateDir);
  if (running && livePids(running, opts.stateDir).length > 0) {
    // Part of it runs: start what is down again, on the same ports with the same state.
    if (await healStack(running, opts)) return;
    printLine(`already running from ${opts.stateDir}`);
    const runs = running.cluster?.length ?? 1;
    if (opts.brokers !== undefined && opts.brokers !== runs)
      printLine(`it runs ${runs} Kafka broker(s), not ${opts.brokers}: stop it first to change that`);
    printLine(`KAFKA_BROKERS=${running.settings.KAFKA_BROKERS}`);
    printLine(`SCHEMA_REGISTRY_URL=${running.settings.SCHEMA_REGISTRY_URL}`);
    if (running.settings.DATABASE_URL) printLine(`DATABASE_URL=${running.settings.DATABASE_URL}`);
    for (const [name, value] of Object.entries(traceSettings(running))) printLine(`${name}=${value}`);
    writeStackEnv(STACK_ENV_FILE, running);
    return;
  }
  const began = Date.now();
  // Listening from the start: a Ctrl-C while it starts stops what was started, and one while it stops waits for that.
  const interrupts = watchInterrupts();
  try {
    const stack = await startStack({
      stateDir: opts.stateDir,
      cacheDir: opts.cacheDir,
      ports: portPreference(),
      log: (l) => printLine(`  ${l}`),
      signal: interrupts.signal,
      brokers: opts.brokers,
      traces: true,
    });
    // Whatever ends this (Ctrl-C, a JVM dying, an error here), the stack stops unless detached.
    let detached = false;
    try {
      throwIfInterrupted(interrupts.signal);
      writeStackEnv(STACK_ENV_FILE, stack.info);
      printSettings(stack);
      printLine(`ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
      if (opts.detach) {
        stack.detach();
        detached = true;
        printLine('running in the background; stop with `hookstream stack down`');
        return;
      }
      printLine('press Ctrl-C to stop');
      const ended = await Promise.race([
        interrupts.received.then((signal) => ({ reason: `got ${signal}`, failed: false })),
        stack.unexpectedExit.then((reason) => ({ reason, failed: true })),
      ]);
      printLine(`stopping (${ended.reason})`);
      if (ended.failed) process.exitCode = ExitCodes.FAILED;
    } finally {
      if (!detached) {
        await stack.stop();
        removeStackEnvOf(STACK_ENV_FILE, opts.stateDir);
        printLine('stopped');
      }
    }
  } finally {
    interrupts.dispose();
  }
}

async function stackDown(opts: { stateDir: string }): Promise<void> {
  // First, so that a `hookstream start` watching this stack does not start again what is stopped now.
  markStopping(opts.stateDir);
  const stopped = describeStopped(await stopStack(opts.stateDir));
  removeStackEnvOf(STACK_ENV_FILE, opts.stateDir);
  printLine(stopped ? `stopped ${stopped}` : 'nothing was running');
}

function stackWipe(opts: { stateDir: string }): void {
  const { stateDir } = opts;
  if (livePids(readRunInfo(stateDir), stateDir).length > 0) {
    throw new StackError('the stack is running: stop it with `hookstream stack down` first');
  }
  const starting = startInProgress(stateDir);
  if (starting) throw new StackError(`a stack is being started from ${stateDir} (pid ${starting}): stop it first`);
  const refusal = wipeRefusal(stateDir);
  if (refusal) throw new StackError(refusal);
  // PostgreSQL's data directory is in the state dir: the state database (which names topics and
  // offsets of the Kafka wiped with it) and `hookstream start`'s delivery log go with it, and are
  // made empty again at the next start.
  rmSync(stateDir, { recursive: true, force: true });
  printLine(`wiped ${stateDir} (Kafka's log, the registry's schemas, PostgreSQL's databases)`);
}

export function stackCommand(): Command {
  const stack = new Command('stack')
    .description('the local Kafka broker, schema registry, PostgreSQL and Jaeger (no Docker needed)')
    .enablePositionalOptions();

  stack
    .command('up')
    .description(
      'fetch (once) and start Kafka (KRaft), Apicurio Registry, PostgreSQL and Jaeger (the trace store; built once with Go, ' +
        'else left out) on loopback; Ctrl-C stops them. Nothing is started when KAFKA_BROKERS and SCHEMA_REGISTRY_URL are both set',
    )
    .option('--detach', 'leave them running in the background and return')
    .addOption(brokersOption())
    .addOption(stateDirOption())
    .addOption(cacheDirOption())
    .addHelpText('after', PORTS_HELP)
    .action(stackUp);

  stack
    .command('down')
    .description('stop the local stack, Jaeger too; nothing is left running (data is kept: see `stack wipe`; traces were in memory)')
    .addOption(stateDirOption())
    .action(stackDown);

  stack
    .command('status')
    .description('print the settings, health and every endpoint of the local stack')
    .option('--json', 'one JSON document, for scripts')
    .addOption(stateDirOption())
    .action(stackStatus);

  stack
    .command('wipe')
    .description(
      "delete the stack's data together: Kafka's log, the registry's schemas and PostgreSQL's databases (the services' " +
        "state and `hookstream start`'s delivery log; never a database of the environment's own); refuses while it runs",
    )
    .addOption(stateDirOption())
    .action(stackWipe);

  stack
    .command('exec')
    .description(
      'run a command with KAFKA_BROKERS, SCHEMA_REGISTRY_URL and DATABASE_URL set: those of the environment when the first two are set, ' +
        'else the stack running from the state dir, else one started for the command and stopped after it; ' +
        'OTEL_EXPORTER_OTLP_ENDPOINT and DELIVERY_LOG_TRACE_URL too when that stack runs Jaeger (unless the environment sets them)',
    )
    .option('--ephemeral', 'use fresh, throwaway state and free ports (tests); otherwise the persistent state dir')
    .addOption(
      new Option('--traces', 'with --ephemeral: run Jaeger in the fresh stack too (a stack started otherwise always runs it)').env(
        'HOOKSTREAM_STACK_TRACES',
      ),
    )
    .addOption(brokersOption())
    .addOption(cacheDirOption())
    .argument('<command...>', 'the command and its arguments (put them after --)')
    .passThroughOptions()
    .action(async (command: string[], opts: { ephemeral?: boolean; traces?: boolean; cacheDir: string; brokers?: number }) => {
      process.exitCode = await execWithStack(command, opts);
    });

  return stack;
}
