import { Command, CommanderError } from 'commander';
import { ErrorCodes, HookstreamError, describeError, hasErrorCode } from '@hookstream/errors';
import { routeProcessWarnings } from '@hookstream/runtime';
import { sizeLibuvThreadPool } from '@hookstream/kafka';
import { demoPartnerCommand } from './commands/demo-partner';
import { dlqCommand } from './commands/dlq';
import { operatorsCommand } from './commands/operators';
import { partnersCommand } from './commands/partners';
import { policyCommand } from './commands/policy';
import { stackCommand } from './commands/stack';
import { startCommand } from './commands/start';
import { topicsCommand } from './commands/topics';
import { toleratePipeClosedByReader } from './output';
import { ExitCodes, refusalExitCode } from './exit-codes';

export function buildProgram(): Command {
  return new Command('hookstream')
    .description('Hookstream: partner webhooks in, policy callbacks out, on Kafka')
    .version((require('../package.json') as { version: string }).version)
    .showHelpAfterError()
    .enablePositionalOptions()
    .addCommand(startCommand())
    .addCommand(stackCommand())
    .addCommand(topicsCommand())
    .addCommand(partnersCommand())
    .addCommand(operatorsCommand())
    .addCommand(policyCommand())
    .addCommand(dlqCommand())
    .addCommand(demoPartnerCommand());
}

/** Runs the CLI. Expected failures print one clear message (no stack trace) and set a non-zero exit code. */
export async function main(argv: string[]): Promise<void> {
  sizeLibuvThreadPool(); // before anything uses libuv's pool: its size is read once (packages/kafka client.ts)
  routeProcessWarnings((warning) => process.stderr.write(`hookstream: warning: ${warning.message}\n`));
  toleratePipeClosedByReader();
  const program = buildProgram().exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed the message or help already.
      process.exitCode = error.exitCode;
      return;
    }
    if (hasErrorCode(error, ErrorCodes.INTERRUPTED)) {
      // Whatever the command had started is stopped by now; 130 as a shell reports Ctrl-C.
      process.stderr.write('hookstream: interrupted\n');
      process.exitCode = ExitCodes.INTERRUPTED;
      return;
    }
    const refused = refusalExitCode(error);
    if (refused !== undefined) {
      process.stderr.write(`hookstream: ${describeError(error)}\n`);
      process.exitCode = refused;
      return;
    }
    process.stderr.write(`hookstream: ${describeError(error)}\n`);
    if (!(error instanceof HookstreamError) && process.env.HOOKSTREAM_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = ExitCodes.FAILED;
  }
}
