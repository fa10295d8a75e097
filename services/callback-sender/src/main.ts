// First: tracing starts before anything it instruments loads (tracing.ts).
import { tracing } from './tracing';
import { GroupMember, RETRY_TIER_COUNT, RetryTiers, TopicNames, groupSessionOf, retryTopicName } from '@hookstream/kafka';
import { PartnerLimiter, SecretBox, openStateStore } from '@hookstream/runtime';
import { createServiceRuntime, runService, watchBacklog } from '@hookstream/service';
import { configSchema, versionWindowMs } from './config';
import { CallbackHttpClient } from './adapters/http/http-delivery';
import { PartnerSigners } from './adapters/signing/partner-signers';
import { deliverCallback } from './domain/deliver-callback';
import { sendCallback, type SendCallbackDeps } from './domain/send-callback';
import { PartnerBreakers } from './domain/circuit-breaker';
import { SendsInFlight } from './domain/sends-in-flight';
import { CallbackRecords } from './entry/kafka/callback-records';
import { DispositionWriter, type CallbackTopics } from './adapters/kafka/disposition-writer';
import { BREAKER_GAUGE, createCallbackSenderMetrics } from './metrics';
import { LatestVersions } from './adapters/store/latest-versions';
import { DeliveredCallbacks } from './adapters/store/delivered-callbacks';
import { versionMigrations, type VersionTables } from './adapters/store/version-table';

export { configSchema } from './config';

/**
 * Composition root of the callback-sender: callback requests and retry tiers in; each callback
 * signed for its partner (spec 5.1) and POSTed (spec 4.1); only a 200 is delivered, any other
 * outcome moves the record to the next retry tier and after the last to the dead-letter topic
 * (spec 8); latest-wins ordering (the newest versions in the PostgreSQL state store), a circuit
 * breaker and a concurrency limit per partner, and an SSRF guard on every connection.
 */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    tracing,
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
  const { config, partners } = runtime;
  const topic = (name: string) => runtime.topics.get(name)!.topic;
  const metrics = createCallbackSenderMetrics(runtime.metrics);
  const http = new CallbackHttpClient({
    connectTimeoutMs: config.SENDER_CONNECT_TIMEOUT_MS,
    connectionsPerOrigin: config.SENDER_CONNECTIONS_PER_ORIGIN,
    maxResponseBytes: config.SENDER_MAX_RESPONSE_BYTES,
    ssrf: { allow: config.SSRF_ALLOW },
  });
  // After the consumers and producers: a request still in flight then belongs to a record handed back.
  runtime.shutdown.onStop('http client', () => http.close(), 'connections');
  const signers = new PartnerSigners(new SecretBox(config.HOOKSTREAM_SECRETS_KEYS), http.dispatcher, partners);
  const breakers = new PartnerBreakers(
    {
      failureThreshold: config.BREAKER_FAILURE_THRESHOLD,
      failureRate: config.BREAKER_FAILURE_RATE,
      windowMs: config.BREAKER_WINDOW_MS,
      openMs: config.BREAKER_OPEN_MS,
      slowAnswerMs: config.BREAKER_SLOW_ANSWER_MS,
    },
    (partner, state) => metrics.breakerState.set({ partner }, BREAKER_GAUGE[state]),
  );
  const limiter = new PartnerLimiter({ perPartner: config.SENDER_PARTNER_CONCURRENCY });
  const versions: LatestVersions = new LatestVersions({
    openStore: () =>
      openStateStore<VersionTables>({
        url: config.DATABASE_URL,
        service: 'callback-sender',
        namespace: config.TOPIC_PREFIX,
        migrations: versionMigrations,
        maxConnections: config.DATABASE_CONNECTIONS,
        logger: runtime.logger,
      }),
    logger: runtime.logger,
    windowMs: versionWindowMs(config),
    // The deliveries delivered share the versions' store and window: their rows are swept with them.
    sweepAlso: (cutoff) => delivered.sweep(cutoff),
  });
  const delivered: DeliveredCallbacks = new DeliveredCallbacks(() => versions.db());

  const delivery: SendCallbackDeps = {
    partners,
    versions,
    delivered,
    sendsInFlight: new SendsInFlight(),
    breakers,
    limiter,
    deliver: (request, attempt) =>
      deliverCallback(request, attempt, { partners, signers, http, unknownPartnerGraceMs: config.UNKNOWN_PARTNER_GRACE_MS }),
    retryDelaysMs: config.CALLBACK_RETRY_DELAYS_MS,
    maxRetryAfterMs: config.RETRY_AFTER_MAX_MS,
    now: Date.now,
  };
  const topics: CallbackTopics = {
    requests: topic(TopicNames.callbackRequests),
    outcomes: topic(TopicNames.callbackOutcomes),
    deadLetters: topic(TopicNames.callbackDlq),
    tiers: new RetryTiers((tier) => topic(retryTopicName(tier)), config.CALLBACK_RETRY_DELAYS_MS.length),
  };
  const writer = new DispositionWriter({ codec: runtime.codec, logger: runtime.logger, metrics, topics, now: Date.now });
  const records = new CallbackRecords({
    codec: runtime.codec,
    logger: runtime.logger,
    metrics,
    topics,
    sendCallback: (request, history, read) => sendCallback(request, history, delivery, read),
    writer,
    now: Date.now,
  });
  const member = new GroupMember({
    kafka: runtime.kafka,
    logger: runtime.logger.child({ module: 'callback-consumer' }),
    groupId: `${config.TOPIC_PREFIX}${config.SENDER_CONSUMER_GROUP}`,
    session: groupSessionOf(config),
    topics: [topics.requests],
    mode: {
      kind: 'concurrent',
      tiers: topics.tiers,
      partitionConcurrency: config.SENDER_PARTITION_CONCURRENCY,
      handle: (record) => records.handle(record),
      // Before a batch of callback-requests is dispatched, its versions are in the store (latest-versions.ts).
      beforeBatch: ({ messages }) => versions.recordBatch(messages),
      onPausedPartitions: (count) => metrics.pausedPartitions.set(count),
    },
  });
  metrics.readRetryOverdueFrom(() => member.retryOverdueSeconds());
  // Opens the state store (retried while PostgreSQL is away) and sweeps its old versions.
  runtime.startInBackground('latest-versions', versions);
  // Checked at each /readyz: while the store does not answer, every batch is read again later.
  runtime.addReadinessCheck({ name: 'state-store', check: () => versions.check() });
  // Deliveries need the partners and the store: start once both are there (nothing is read at start).
  runtime.startInBackground(
    'callback-consumer',
    {
      start: async () => {
        await partners.whenReady();
        await versions.whenReady;
        await member.start();
      },
      stop: (handBack) => member.stop(handBack),
    },
    () => member.joined,
  );
  // What an SRE watches: both groups' lag, and the dead letters waiting for a person.
  watchBacklog(runtime, {
    groups: [...member.groups],
    deadLetterTopic: TopicNames.callbackDlq,
  });
  const server = await runtime.listen();
  return { runtime, server };
}

if (require.main === module) runService('callback-sender', () => main());
