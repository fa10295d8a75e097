// First: tracing starts before anything it instruments loads (tracing.ts).
import { tracing } from './tracing';
import { ApiKeyHasher } from '@hookstream/partners';
import { TopicNames } from '@hookstream/kafka';
import { createServiceRuntime, runService } from '@hookstream/service';
import { configSchema } from './config';
import { createIngressMetrics } from './metrics';
import { AbandonedClaimSearch } from './adapters/kafka/abandoned-claim-search';
import { answerPublishers } from './adapters/kafka/answer-publishers';
import { KafkaPartnerEvents } from './adapters/kafka/partner-events';
import { IdempotencyLedger } from './adapters/store/ledger';
import { answerParserRefusalsWithJson } from './entry/http/client-errors';
import { ingressOpenApi } from './entry/http/openapi';
import { createWebhookRoutes } from './entry/http/webhook-routes';

export { configSchema } from './config';

/** Composition root of the ingress: partner webhooks in (spec 4.2), durable on partner-events. */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    tracing,
    service: 'ingress',
    configSchema,
    topics: [TopicNames.partnerEvents, TopicNames.partnerConfig],
    apiKeyHasher: (config) => new ApiKeyHasher(config.HOOKSTREAM_API_KEY_PEPPERS),
    // A partner event not durable within the write timeout is failed for good, so that no write
    // outlives the claim it was made under (see IDEMPOTENCY_CLAIM_TTL_MS in config.ts).
    deliveryTimeoutMs: (config) => config.INGRESS_WRITE_TIMEOUT_MS,
    env,
  });
  const { config, kafka, codec, logger, instanceId } = runtime;
  const topic = (name: string) => runtime.topics.get(name)!.topic;

  // The request_id ledger is in PostgreSQL (adapters/store/ledger.ts): nothing is read at start. It
  // opens (and migrates) in the background, so a webhook without a request_id is taken at once.
  const ledger = new IdempotencyLedger({
    url: config.DATABASE_URL,
    namespace: config.TOPIC_PREFIX,
    maxConnections: config.DATABASE_CONNECTIONS,
    instance: instanceId,
    logger,
    claimTtlMs: config.IDEMPOTENCY_CLAIM_TTL_MS,
    retentionMs: config.IDEMPOTENCY_RETENTION_HOURS * 3600_000,
    search: new AbandonedClaimSearch({ kafka, codec, topic: topic(TopicNames.partnerEvents), logger }),
  });
  runtime.startInBackground('idempotency-ledger', ledger);
  // Ready only while the store answers: a webhook with a request_id needs it.
  runtime.addReadinessCheck({ name: 'state-store', check: () => ledger.check() });

  const metrics = createIngressMetrics(runtime.metrics);

  // Not among the runtime's topics, whose leaders decide readiness: a webhook is never refused for want of a place to record refusals or replays.
  const answersProducer = kafka.producer();
  await answersProducer.connect();
  runtime.shutdown.onStop('answer records producer', () => answersProducer.disconnect(), 'producers');
  const answers = await answerPublishers({
    producer: answersProducer,
    codec,
    topicPrefix: config.TOPIC_PREFIX,
    instanceId,
    logger,
    metrics,
  });
  runtime.shutdown.onStop(
    'pending answer records',
    async () => {
      await Promise.all([answers.rejections.flush(), answers.replays.flush()]);
    },
    'producers',
  );

  const routes = createWebhookRoutes({
    basePath: config.INGRESS_BASE_PATH,
    bodyLimitBytes: config.INGRESS_BODY_LIMIT_BYTES,
    writeTimeoutMs: config.INGRESS_WRITE_TIMEOUT_MS,
    draining: () => runtime.shutdown.draining,
    partners: runtime.partners,
    metrics,
    logger,
    openapi: ingressOpenApi(config.INGRESS_BASE_PATH),
    rejections: answers.rejections,
    replays: answers.replays,
    accept: {
      ledger,
      events: new KafkaPartnerEvents({
        codec,
        topic: topic(TopicNames.partnerEvents),
        producer: runtime.recordWriter,
        reachable: () => runtime.producer.reachable(topic(TopicNames.partnerEvents)),
      }),
      instanceId,
      duplicateWaitMs: config.IDEMPOTENCY_WAIT_MS,
      metrics,
      logger,
    },
  });
  runtime.app.use(routes.router);
  const server = await runtime.listen({ notFound: routes.notFound, onError: routes.onError });
  answerParserRefusalsWithJson(server.server, runtime.logger);
  return { runtime, server, ledger };
}

if (require.main === module) runService('ingress', () => main());
