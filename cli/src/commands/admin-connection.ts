import { AuditedWriter } from '@hookstream/partners';
import { AvroCodec, TopicNames, createKafkaClient, defaultSchemasDir, kafkaSecurity, topicCatalogue, type Kafka } from '@hookstream/kafka';
import { createLogger, type Logger } from '@hookstream/runtime';

/** What a command that changes partners or operators needs: Kafka, the codec of its topics, and the audited writer. */
export interface AdminConnection {
  kafka: Kafka;
  codec: AvroCodec;
  logger: Logger;
  writer: AuditedWriter;
  /** Real name of a logical topic. */
  topic: (logical: string) => string;
}

/**
 * Connects for `hookstream partners` and `hookstream operators`: the Kafka client, the schemas of
 * `topics` and of admin-audit registered, and a writer that commits each change with its audit
 * record. `work` runs between `open` and the writer's close, whatever it throws.
 */
export async function withAdminConnection<T>(
  config: { KAFKA_BROKERS: string[]; SCHEMA_REGISTRY_URL: string; TOPIC_PREFIX: string } & Parameters<typeof kafkaSecurity>[0],
  topics: string[],
  env: NodeJS.ProcessEnv,
  work: (connection: AdminConnection) => Promise<T>,
): Promise<T> {
  const logger = createLogger({ service: 'cli', level: 'error' });
  const kafka = createKafkaClient({
    brokers: config.KAFKA_BROKERS,
    clientId: 'hookstream-cli-admin',
    logger,
    security: kafkaSecurity(config),
  });
  const catalogue = topicCatalogue({ prefix: config.TOPIC_PREFIX });
  const codec = new AvroCodec(config.SCHEMA_REGISTRY_URL, defaultSchemasDir(env));
  await codec.registerTopics(catalogue.filter((t) => t.name === TopicNames.adminAudit || topics.includes(t.name)));
  const writer = new AuditedWriter(kafka, codec, config.TOPIC_PREFIX);
  try {
    return await work({ kafka, codec, logger, writer, topic: (logical) => `${config.TOPIC_PREFIX}${logical}` });
  } finally {
    await writer.close();
  }
}
