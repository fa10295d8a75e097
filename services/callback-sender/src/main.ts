import { RETRY_TIER_COUNT, SecretBox, TopicNames, createServiceRuntime, retryTopicName, runService } from '@hookstream/shared';
import { configSchema } from './config';
import { CallbackHttpClient } from './delivery/http-delivery';
import { PartnerSigners } from './delivery/partner-signers';
import { deliverCallback } from './domain/deliver-callback';
import { CallbackConsumer } from './kafka/callback-consumer';
import { createCallbackSenderMetrics } from './metrics';

export { configSchema } from './config';

/**
 * Composition root of the callback-sender: callback requests in, each signed for its partner
 * (spec 5.1) and POSTed (spec 4.1); only a 200 is delivered, every other outcome moves the
 * record to the next retry tier, and after the last to the dead-letter topic.
 */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    service: 'callback-sender',
    configSchema,
    topics: [
      TopicNames.callbackRequests,
      TopicNames.callbackOutcomes,
      TopicNames.callbackDlq,
      TopicNames.partnerConfig,
      ...Array.from({ length: RETRY_TIER_COUNT }, (_, i) => retryTopicName(i + 1)),
    ],
    env,
  });
  const { config } = runtime;
  const topic = (name: string) => runtime.topics.get(name)!.topic;
  const metrics = createCallbackSenderMetrics(runtime.metrics);
  const http = new CallbackHttpClient({
    connectTimeoutMs: config.SENDER_CONNECT_TIMEOUT_MS,
    connectionsPerOrigin: config.SENDER_CONNECTIONS_PER_ORIGIN,
    maxResponseBytes: config.SENDER_MAX_RESPONSE_BYTES,
  });
  runtime.shutdown.onStop('http client', () => http.close());
  const signers = new PartnerSigners(new SecretBox(config.HOOKSTREAM_SECRETS_KEYS), http.dispatcher, runtime.partners);

  const consumer = new CallbackConsumer({
    kafka: runtime.kafka,
    codec: runtime.codec,
    logger: runtime.logger,
    metrics,
    groupId: `${config.TOPIC_PREFIX}${config.SENDER_CONSUMER_GROUP}`,
    topics: {
      source: topic(TopicNames.callbackRequests),
      outcomes: topic(TopicNames.callbackOutcomes),
      deadLetters: topic(TopicNames.callbackDlq),
      retry: (tier) => topic(retryTopicName(tier)),
    },
    producer: runtime.batchingProducer,
    deliver: (request, attempt) =>
      deliverCallback(request, attempt, {
        partners: runtime.partners,
        signers,
        http,
        unknownPartnerGraceMs: config.UNKNOWN_PARTNER_GRACE_MS,
      }),
    retryDelaysMs: config.CALLBACK_RETRY_DELAYS_MS,
    partitionConcurrency: config.SENDER_PARTITION_CONCURRENCY,
  });
  // Deliveries need the partners: start once partner-config is loaded.
  runtime.startInBackground('callback-consumer', {
    start: async () => {
      await runtime.partners.whenReady();
      await consumer.start();
    },
    stop: () => consumer.stop(),
  });
  const server = await runtime.listen();
  return { runtime, server };
}

if (require.main === module) runService('callback-sender', () => main());
