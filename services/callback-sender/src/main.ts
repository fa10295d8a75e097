import { TopicNames, createServiceRuntime, runService, serviceSchemaWithPort } from '@hookstream/shared';

/** Config of the callback-sender: the shared settings, HTTP_PORT defaulting to 8092. */
export const configSchema = serviceSchemaWithPort(8092);

/**
 * Composition root of the callback-sender (signs and delivers callbacks with retry tiers).
 * For now it connects to Kafka and the registry, registers its topics' schemas and serves
 * /healthz, /readyz and /metrics.
 */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    service: 'callback-sender',
    configSchema,
    topics: [TopicNames.callbackRequests, TopicNames.callbackOutcomes, TopicNames.callbackDlq, TopicNames.partnerConfig],
    env,
  });
  const server = await runtime.listen();
  return { runtime, server };
}

if (require.main === module) runService('callback-sender', () => main());
