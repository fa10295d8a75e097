import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Command, Option } from 'commander';
import { StackError } from '@hookstream/shared';
import { formatTable, printJson, printLine } from '../output';
import { STACK_ENV_FILE } from '../paths';
import { defaultCacheDir } from '../stack/artifacts';
import { checkStack } from '../stack/health';
import {
  defaultStateDir,
  livePids,
  makeEphemeralStateDir,
  readRunInfo,
  startStack,
  stopStack,
  writeStackEnv,
  type RunningStack,
} from '../stack/stack';

const stateDirOption = () =>
  new Option('--state-dir <dir>', 'where the Kafka log and registry database live').default(
    defaultStateDir(),
    '$HOOKSTREAM_STATE_DIR or ~/.local/state/hookstream/stack',
  );
const cacheDirOption = () =>
  new Option('--cache-dir <dir>', 'where fetched Kafka and Apicurio builds are kept').default(
    defaultCacheDir(),
    '$HOOKSTREAM_CACHE_DIR or ~/.cache/hookstream',
  );

/** Resolves when the process gets SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

function printSettings(stack: RunningStack): void {
  const { info } = stack;
  printLine();
  printLine(
    formatTable([
      ['KAFKA_BROKERS', info.settings.KAFKA_BROKERS],
      ['SCHEMA_REGISTRY_URL', info.settings.SCHEMA_REGISTRY_URL],
    ]),
  );
  printLine();
  printLine(`saved to ${STACK_ENV_FILE}; state in ${info.stateDir}`);
  printLine(`logs: ${info.logs.kafka}, ${info.logs.registry}`);
}

export function stackCommand(): Command {
  const stack = new Command('stack').description('the local Kafka broker and schema registry (no Docker needed)').enablePositionalOptions();

  stack
    .command('up')
    .description('fetch (once) and start Kafka (KRaft) and Apicurio Registry on loopback; Ctrl-C stops them')
    .option('--detach', 'leave them running in the background and return')
    .addOption(stateDirOption())
    .addOption(cacheDirOption())
    .action(async (opts: { detach?: boolean; stateDir: string; cacheDir: string }) => {
      const running = readRunInfo(opts.stateDir);
      if (livePids(running).length > 0 && running) {
        printLine(`already running from ${opts.stateDir}`);
        printLine(`KAFKA_BROKERS=${running.settings.KAFKA_BROKERS}`);
        printLine(`SCHEMA_REGISTRY_URL=${running.settings.SCHEMA_REGISTRY_URL}`);
        writeStackEnv(STACK_ENV_FILE, running);
        return;
      }
      const started = Date.now();
      // Listen before starting: a Ctrl-C during the start stops the stack once it is up, not leaving it behind.
      const interrupted = untilSignal();
      const handle = await startStack({ stateDir: opts.stateDir, cacheDir: opts.cacheDir, log: (l) => printLine(`  ${l}`) });
      writeStackEnv(STACK_ENV_FILE, handle.info);
      printSettings(handle);
      printLine(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      if (opts.detach) {
        printLine('running in the background; stop with `hookstream stack down`');
        return;
      }
      printLine('press Ctrl-C to stop');
      const reason = await Promise.race([interrupted.then((s) => `got ${s}`), handle.unexpectedExit]);
      printLine(`stopping (${reason})`);
      await handle.stop();
      printLine('stopped');
    });

  stack
    .command('down')
    .description('stop the local stack; nothing is left running (data is kept: see `stack wipe`)')
    .addOption(stateDirOption())
    .action(async (opts: { stateDir: string }) => {
      const stopped = await stopStack(opts.stateDir);
      rmSync(STACK_ENV_FILE, { force: true });
      printLine(stopped.length > 0 ? `stopped ${stopped.join(', ')}` : 'nothing was running');
    });

  stack
    .command('status')
    .description('print the settings, health and every endpoint of the local stack')
    .option('--json', 'one JSON document, for scripts')
    .addOption(stateDirOption())
    .action(async (opts: { json?: boolean; stateDir: string }) => {
      const info = readRunInfo(opts.stateDir);
      const alive = livePids(info);
      if (!info || alive.length === 0) {
        if (opts.json) printJson({ running: false, stateDir: opts.stateDir });
        else printLine(`not running (state in ${opts.stateDir})`);
        process.exitCode = 3;
        return;
      }
      const health = await checkStack(info.settings);
      const healthy = health.kafka.ok && health.registry.ok;
      if (opts.json) {
        printJson({ running: true, healthy, ...info, health });
      } else {
        printLine(
          formatTable([
            ['component', 'health', 'endpoint', 'detail'],
            ['kafka', health.kafka.ok ? 'up' : 'DOWN', `PLAINTEXT://${info.settings.KAFKA_BROKERS}`, health.kafka.detail],
            ['kafka controller', '-', `CONTROLLER://127.0.0.1:${info.ports.kafkaController}`, `pid ${info.processes.kafka}`],
            ['registry', health.registry.ok ? 'up' : 'DOWN', info.settings.SCHEMA_REGISTRY_URL, health.registry.detail],
            ['registry management', '-', `http://127.0.0.1:${info.ports.registryManagement}`, `pid ${info.processes.registry}`],
          ]),
        );
        printLine();
        printLine(`KAFKA_BROKERS=${info.settings.KAFKA_BROKERS}`);
        printLine(`SCHEMA_REGISTRY_URL=${info.settings.SCHEMA_REGISTRY_URL}`);
        printLine(`state: ${info.stateDir}; started ${info.startedAt}; Kafka ${info.versions.kafka}, Apicurio ${info.versions.apicurio}`);
      }
      if (!healthy) process.exitCode = 4;
    });

  stack
    .command('wipe')
    .description("delete the stack's data (Kafka log and registry database together); refuses while it runs")
    .addOption(stateDirOption())
    .action((opts: { stateDir: string }) => {
      if (livePids(readRunInfo(opts.stateDir)).length > 0) {
        throw new StackError('the stack is running: stop it with `hookstream stack down` first');
      }
      rmSync(opts.stateDir, { recursive: true, force: true });
      printLine(`wiped ${opts.stateDir}`);
    });

  stack
    .command('exec')
    .description('run a command with KAFKA_BROKERS and SCHEMA_REGISTRY_URL set; starts a stack first unless both are already set')
    .option('--ephemeral', 'use fresh, throwaway state and free ports (tests); otherwise the persistent state dir')
    .addOption(cacheDirOption())
    .argument('<command...>', 'the command and its arguments (put them after --)')
    .passThroughOptions()
    .action(async (command: string[], opts: { ephemeral?: boolean; cacheDir: string }) => {
      process.exitCode = await execWithStack(command, opts);
    });

  return stack;
}

/**
 * Runs `command` against a stack: the environment's own when KAFKA_BROKERS and
 * SCHEMA_REGISTRY_URL are set (nothing is started), else one started here and stopped when
 * the command ends, fails, or this process is interrupted.
 */
async function execWithStack(command: string[], opts: { ephemeral?: boolean; cacheDir: string }): Promise<number> {
  const [program, ...args] = command;
  if (!program) throw new StackError('no command given');
  let handle: RunningStack | undefined;
  let stateDir: string | undefined;
  let child: ChildProcess | undefined;
  let interrupted: NodeJS.Signals | undefined;
  // Listen from the start: an interrupt while the stack starts must still stop it afterwards.
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = signal;
    child?.kill(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const env = { ...process.env };
  try {
    if (env.KAFKA_BROKERS && env.SCHEMA_REGISTRY_URL) {
      process.stderr.write(
        `using KAFKA_BROKERS=${env.KAFKA_BROKERS} and SCHEMA_REGISTRY_URL=${env.SCHEMA_REGISTRY_URL} from the environment\n`,
      );
    } else {
      stateDir = opts.ephemeral ? makeEphemeralStateDir() : defaultStateDir();
      const started = Date.now();
      process.stderr.write(`starting a ${opts.ephemeral ? 'fresh' : 'persistent'} local stack in ${stateDir}\n`);
      handle = await startStack({
        stateDir,
        cacheDir: opts.cacheDir,
        ports: opts.ephemeral ? 'random' : 'defaults',
        log: (l) => process.stderr.write(`  ${l}\n`),
      });
      process.stderr.write(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      Object.assign(env, handle.info.settings);
      for (const [name, value] of Object.entries(handle.secrets)) env[name] ??= value;
    }
    if (interrupted) return 130;
    const running = spawn(program, args, { stdio: 'inherit', env });
    child = running;
    return await new Promise<number>((resolve) => {
      running.once('error', (error) => {
        process.stderr.write(`could not run ${program}: ${error.message}\n`);
        resolve(127);
      });
      running.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 143)));
    });
  } finally {
    if (handle) {
      await handle.stop();
      process.stderr.write('local stack stopped\n');
    }
    if (opts.ephemeral && stateDir) rmSync(stateDir, { recursive: true, force: true });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
