import { TopicNames, createServiceRuntime, runService, serviceSchemaWithPort } from '@hookstream/shared';

/** Config of the policy-status-consumer: the shared settings, HTTP_PORT defaulting to 8091. */
export const configSchema = serviceSchemaWithPort(8091);

/**
 * Composition root of the policy-status-consumer (policy-status events in, callback requests out).
 * For now it connects to Kafka and the registry, registers its topics' schemas and serves
 * /healthz, /readyz and /metrics.
 */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    service: 'policy-status-consumer',
    configSchema,
    topics: [TopicNames.policyStatus, TopicNames.policyStatusDlq, TopicNames.callbackRequests, TopicNames.partnerConfig],
    env,
  });
  const server = await runtime.listen();
  return { runtime, server };
}

if (require.main === module) runService('policy-status-consumer', () => main());
