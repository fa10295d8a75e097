import { type z } from 'zod';
import {
  ApiKeyHasher,
  AvroCodec,
  PartnerDirectory,
  PartnerStore,
  SecretBox,
  TopicNames,
  apiKeyPeppersSetting,
  createKafkaClient,
  createLogger,
  defaultSchemasDir,
  kafkaSettingsSchema,
  kafkaSecurity,
  loadConfig,
  policyBodyFieldPaths,
  secretsKeysSetting,
  topicCatalogue,
  type Partner,
  type PartnerAdminDeps,
} from '@hookstream/shared';
import { environmentWithStackEnv } from '../paths';
import { NotFound } from '../refusals';

/** What a `hookstream partners` command works with: every partner read from partner-config, and the way to write one. */
export interface PartnerSession {
  directory: PartnerDirectory;
  store: PartnerStore;
  deps: () => PartnerAdminDeps;
}

/**
 * Connects to Kafka and the registry, reads every partner from partner-config, runs `work`,
 * and disconnects. The secrets settings are read only by the commands that need them.
 */
export async function withPartners<T>(
  needsSecrets: boolean,
  work: (session: PartnerSession) => Promise<T>,
  env: NodeJS.ProcessEnv = environmentWithStackEnv(),
): Promise<T> {
  const config = loadConfig(
    needsSecrets ? kafkaSettingsSchema.extend({ ...secretsKeysSetting, ...apiKeyPeppersSetting }) : kafkaSettingsSchema,
    env,
  );
  const logger = createLogger({ service: 'cli', level: 'error' });
  const kafka = createKafkaClient({
    brokers: config.KAFKA_BROKERS,
    clientId: 'hookstream-cli-partners',
    logger,
    security: kafkaSecurity(config),
  });
  const topic = topicCatalogue({ prefix: config.TOPIC_PREFIX }).find((t) => t.name === TopicNames.partnerConfig)!;
  const codec = new AvroCodec(config.SCHEMA_REGISTRY_URL, defaultSchemasDir(env));
  await codec.registerTopics([topic]);
  const directory = new PartnerDirectory({ kafka, codec, topic: topic.topic, logger });
  const producer = kafka.producer();
  try {
    // Inside the try: one of them failing to connect must not leave the other running.
    await Promise.all([directory.start(), producer.connect()]);
    return await work({
      directory,
      store: new PartnerStore(producer, codec, topic.topic),
      deps: () => {
        const secrets = config as unknown as z.infer<z.ZodObject<typeof secretsKeysSetting & typeof apiKeyPeppersSetting>>;
        return {
          box: new SecretBox(secrets.HOOKSTREAM_SECRETS_KEYS),
          hasher: new ApiKeyHasher(secrets.HOOKSTREAM_API_KEY_PEPPERS),
          policyPaths: policyBodyFieldPaths(defaultSchemasDir(env)),
        };
      },
    });
  } finally {
    await Promise.all([directory.stop(), producer.disconnect()]);
  }
}

/** The partner `partnerId`, or a refusal naming it (exit 3). */
export function requirePartner(directory: PartnerDirectory, partnerId: string): Partner {
  const partner = directory.get(partnerId);
  if (!partner) throw new NotFound(`no partner "${partnerId}" (see \`hookstream partners list\`)`);
  return partner;
}
