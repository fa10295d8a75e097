/**
 * A throwaway namespace on the local stack for one bench run: every catalogue topic under a unique
 * prefix (6 partitions), their Avro schemas registered, and onboarding straight into its
 * partner-config, as `hookstream partners create` would write it.
 */
import { z } from 'zod';
import { ApiKeyHasher, PartnerStore, createPartner, policyBodyFieldPaths } from '@hookstream/partners';
import { AvroCodec, TopicNames, createKafkaClient, defaultSchemasDir, ensureTopics, topicCatalogue, type Kafka } from '@hookstream/kafka';
import { SecretBox, apiKeyPeppersSetting, createLogger, loadConfig, secretsKeysSetting } from '@hookstream/runtime';

export interface BenchStack {
  /** The topic prefix (TOPIC_PREFIX for the services). */
  prefix: string;
  kafka: Kafka;
  codec: AvroCodec;
  /** Real name of a topic, from its logical name. */
  topic: (name: string) => string;
  /** Writes a partner made from `spec` (a partner spec, as the CLI takes it); returns its first API key. */
  onboard: (spec: Record<string, unknown>) => Promise<{ partnerId: string; apiKey: string }>;
}

/** Creates the topics and registers the schemas of partner-config and of `registered` (logical names). */
export async function prepareBenchStack(env: NodeJS.ProcessEnv, registered: string[]): Promise<BenchStack> {
  const prefix = `bench-${Date.now()}.`;
  const logger = createLogger({ service: 'bench', level: 'error' });
  const kafka = createKafkaClient({ brokers: (env.KAFKA_BROKERS ?? '').split(','), clientId: 'bench', logger });
  const topics = topicCatalogue({ prefix, partitions: 6 });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, topics);
  await admin.disconnect();
  const resolved = (name: string) => {
    const found = topics.find((t) => t.name === name);
    if (!found) throw new Error(`no topic ${name} in the catalogue`);
    return found;
  };
  const codec = new AvroCodec(env.SCHEMA_REGISTRY_URL ?? '', defaultSchemasDir());
  await codec.registerTopics([TopicNames.partnerConfig, ...registered].map(resolved));

  const secrets = loadConfig(z.object({ ...secretsKeysSetting, ...apiKeyPeppersSetting }), env);
  const deps = {
    box: new SecretBox(secrets.HOOKSTREAM_SECRETS_KEYS),
    hasher: new ApiKeyHasher(secrets.HOOKSTREAM_API_KEY_PEPPERS),
    policyPaths: policyBodyFieldPaths(defaultSchemasDir()),
  };
  const onboard = async (spec: Record<string, unknown>) => {
    const { partner, apiKey } = createPartner(spec, deps);
    const producer = kafka.producer();
    await producer.connect();
    try {
      await new PartnerStore(producer, codec, resolved(TopicNames.partnerConfig).topic).write(partner);
    } finally {
      await producer.disconnect();
    }
    return { partnerId: partner.partner_id, apiKey: apiKey.key };
  };
  return { prefix, kafka, codec, topic: (name) => resolved(name).topic, onboard };
}
