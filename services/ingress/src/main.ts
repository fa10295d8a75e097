import { TopicNames, createServiceRuntime, runService, serviceSchemaWithPort } from '@hookstream/shared';

/** Config of the ingress: the shared settings, HTTP_PORT defaulting to 8080. */
export const configSchema = serviceSchemaWithPort(8080);

/**
 * Composition root of the ingress (partner webhooks in: POST /api/integration/partner/webhook; behaviour arrives with the ingress issue).
 * For now it connects to Kafka and the registry, registers its topics' schemas and serves
 * /healthz, /readyz and /metrics.
 */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    service: 'ingress',
    configSchema,
    topics: [TopicNames.partnerEvents, TopicNames.ingressIdempotency, TopicNames.partnerConfig],
    env,
  });
  const server = await runtime.listen();
  return { runtime, server };
}

if (require.main === module) runService('ingress', () => main());
