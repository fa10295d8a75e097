import { Command } from 'commander';
import { z } from 'zod';
import {
  AvroCodec,
  clusterReplicationFactor,
  createKafkaClient,
  defaultSchemasDir,
  ensureTopics,
  kafkaSecurity,
  topicCatalogue,
  valueSubject,
} from '@hookstream/kafka';
import { createLogger, kafkaSettingsSchema, loadConfig } from '@hookstream/runtime';
import { formatTable, printJson, printLine } from '../output';
import { environmentWithStackEnv } from '../paths';
import { ExitCodes } from '../exit-codes';

/** Settings of `topics ensure`, from the environment (and .hookstream/stack.env). */
export const topicSettingsSchema = kafkaSettingsSchema.extend({
  /** Partitions of data topics. Default 6. */
  TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(6),
  /** Replication factor of every topic. Default: the cluster's (3 on 3 or more brokers, 1 on a single broker: clusterReplicationFactor). */
  TOPIC_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(10).optional(),
});

export function topicsCommand(): Command {
  const topics = new Command('topics').description('Kafka topics (docs/architecture.md): create, check settings, register value schemas');

  topics
    .command('ensure')
    .description("create missing topics, report drift from the wanted settings, register each topic's value schema; safe to run again")
    .option('--fix', 'change topic configs that drifted (partition counts are never changed automatically)')
    .option('--no-schemas', 'do not register the Avro value schemas')
    .option('--json', 'one JSON document, for scripts')
    .action(async (opts: { fix?: boolean; schemas: boolean; json?: boolean }) => {
      const config = loadConfig(topicSettingsSchema, environmentWithStackEnv());
      const kafka = createKafkaClient({
        brokers: config.KAFKA_BROKERS,
        clientId: 'hookstream-cli',
        logger: createLogger({ service: 'cli', level: 'error' }),
        security: kafkaSecurity(config),
      });
      const admin = kafka.admin();
      await admin.connect();
      let reports;
      let wanted;
      try {
        wanted = topicCatalogue({
          prefix: config.TOPIC_PREFIX,
          partitions: config.TOPIC_PARTITIONS,
          replicationFactor: config.TOPIC_REPLICATION_FACTOR ?? (await clusterReplicationFactor(admin)),
        });
        reports = await ensureTopics(admin, wanted, { fixConfigs: opts.fix ?? false });
      } finally {
        await admin.disconnect();
      }
      const schemaIds = opts.schemas
        ? await new AvroCodec(config.SCHEMA_REGISTRY_URL, defaultSchemasDir()).registerTopics(wanted)
        : new Map<string, number>();

      const drifted = reports.filter((r) => r.outcome === 'drift');
      if (opts.json) {
        printJson({
          topics: reports.map((r) => ({ ...r, subject: valueSubject(r.topic), schemaId: schemaIds.get(r.topic) ?? null })),
          drift: drifted.length > 0,
        });
      } else {
        const rows = [['topic', 'outcome', 'partitions', 'replicas', 'schema id']];
        for (const r of reports) {
          const t = wanted.find((w) => w.topic === r.topic);
          const replicas = t ? `${t.replicationFactor} (min ISR ${t.config['min.insync.replicas']})` : '';
          rows.push([r.topic, r.outcome, String(t?.partitions ?? ''), replicas, String(schemaIds.get(r.topic) ?? '-')]);
        }
        printLine(formatTable(rows));
        for (const r of reports) {
          for (const d of r.drift) {
            printLine(
              `drift: ${r.topic} ${d.setting}: wanted ${d.wanted}, actual ${d.actual}${d.fixed ? ' (fixed)' : ''}${d.note ? ` (${d.note})` : ''}`,
            );
          }
        }
        if (drifted.length > 0 && !opts.fix) printLine('run `hookstream topics ensure --fix` to change drifted configs');
      }
      // Non-zero while the cluster differs from the wanted settings, so scripts and CI notice.
      if (drifted.length > 0) process.exitCode = ExitCodes.TOPICS_DRIFTED;
    });

  return topics;
}
