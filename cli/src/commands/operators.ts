import { Command } from 'commander';
import { ApiKeyHasher, OperatorChanges, OperatorDirectory, cliActor, describeOperator } from '@hookstream/partners';
import { TopicNames } from '@hookstream/kafka';
import { apiKeyPeppersSetting, kafkaSettingsSchema, loadConfig } from '@hookstream/runtime';
import { formatTable, printJson, printLine } from '../output';
import { environmentWithStackEnv } from '../paths';
import { withAdminConnection } from './admin-connection';

interface Session {
  directory: OperatorDirectory;
  changes: OperatorChanges;
}

/** Connects, reads every operator, runs `work` with the audited operator changes, and disconnects. */
export async function withOperators<T>(work: (session: Session) => Promise<T>, env = environmentWithStackEnv()): Promise<T> {
  const config = loadConfig(kafkaSettingsSchema.extend(apiKeyPeppersSetting), env);
  return withAdminConnection(config, [TopicNames.operators], env, async ({ kafka, codec, logger, writer, topic }) => {
    const hasher = new ApiKeyHasher(config.HOOKSTREAM_API_KEY_PEPPERS);
    const directory = new OperatorDirectory({ kafka, codec, topic: topic(TopicNames.operators), logger, hasher });
    try {
      await directory.start();
      return await work({ directory, changes: new OperatorChanges(directory, writer, hasher) });
    } finally {
      await directory.stop();
    }
  });
}

const REASON_HELP = 'why, for the audit trail (admin-audit)';

export function operatorsCommand(): Command {
  const operators = new Command('operators').description(
    'tokens of the operator API (/api/admin/v1): viewers read, operators also write (stored hashed in the operators topic)',
  );

  operators
    .command('create')
    .description('create an operator and its token (shown once)')
    .requiredOption('--name <name>', 'who it is for (a person or a system); the audit trail names them')
    .requiredOption('--role <role>', 'viewer (reads) or operator (reads and writes)')
    .option('--reason <text>', REASON_HELP)
    .option('--json', 'one JSON document, for scripts')
    .action(async (flags: { name: string; role: string; reason?: string; json?: boolean }) => {
      await withOperators(async ({ changes }) => {
        const { operator, token } = await changes.create(
          { name: flags.name, role: flags.role },
          cliActor(),
          flags.reason ?? 'from the CLI',
        );
        if (flags.json) printJson({ ...describeOperator(operator), token: token.token });
        else {
          printLine(`created ${operator.role} ${operator.operator_id} (${operator.name})`);
          printLine(`token, shown only now; send it as Authorization: Bearer <token>: ${token.token}`);
        }
      });
    });

  operators
    .command('list')
    .description('every operator, revoked ones included')
    .option('--json', 'one JSON document, for scripts')
    .action(async (flags: { json?: boolean }) => {
      await withOperators(({ directory }) => {
        const all = directory.list().map(describeOperator);
        if (flags.json) printJson(all);
        else if (all.length === 0) printLine('no operators');
        else
          printLine(
            formatTable([
              ['operator', 'name', 'role', 'token', 'created', 'revoked'],
              ...all.map((o) => [o.operator_id, o.name, o.role, o.token_prefix, o.created_at, o.revoked_at ?? '-'].map(String)),
            ]),
          );
        return Promise.resolve();
      });
    });

  operators
    .command('revoke')
    .description('stop accepting an operator’s token, on every replica within a second')
    .argument('<operatorId>')
    .option('--reason <text>', REASON_HELP)
    .option('--json', 'one JSON document, for scripts')
    .action(async (operatorId: string, flags: { reason?: string; json?: boolean }) => {
      await withOperators(async ({ changes }) => {
        const operator = await changes.revoke(operatorId, cliActor(), flags.reason ?? 'from the CLI');
        if (flags.json) printJson(describeOperator(operator));
        else printLine(`revoked ${operator.operator_id} (${operator.name})`);
      });
    });

  return operators;
}
