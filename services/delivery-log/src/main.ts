// First: tracing starts before anything it instruments loads (tracing.ts).
import { tracing } from './tracing';
import { ApiKeyHasher, AuditedWriter, OperatorDirectory, PartnerChanges, policyBodyFieldPaths } from '@hookstream/partners';
import { ConsumerLagMonitor, TopicNames, defaultSchemasDir, consumerLagGauges, groupSessionOf } from '@hookstream/kafka';
import { SecretBox, sleep } from '@hookstream/runtime';
import { createServiceRuntime, runService } from '@hookstream/service';
import { apiRouter } from './entry/http/api-router';
import { callbackUrlGuard } from './adapters/http/callback-url-guard';
import { IssuedCredentials } from './adapters/store/issued-credentials';
import { PortalTokens } from './adapters/signing/portal-tokens';
import { ConsoleSessions } from './adapters/signing/console-sessions';
import { DeliveryResender } from './domain/resend-delivery';
import { DeadLetterRecovery } from './domain/recover-dead-letters';
import { DeadLetterSessions } from './adapters/kafka/dead-letter-sessions';
import { ReplayLanes } from './adapters/kafka/replay-lanes';
import { Pruner } from './adapters/store/pruner';
import { configSchema } from './config';
import { createDeliveryLogMetrics } from './metrics';
import { DeliveryLogProjection } from './entry/kafka/projection';
import { openStore, type StoreLocation } from './adapters/store/database';
import { DeliveryRetrier, retryNowInFlightMs } from './domain/retry-delivery';
import { FailingDeliveriesRetry } from './domain/retry-failing-deliveries';
import { sendTestEvent } from './domain/send-test-event';
import type { PartnerUseCases } from './entry/http/partner-handle';
import { partnerScopes } from './adapters/store/partner-store';
import { retryStore } from './adapters/store/retry-store';
import { RequestedCallbacks } from './adapters/kafka/requested-callbacks';
import { readSamplePolicy } from './adapters/storage/sample-policy';
import { notificationOutbox } from './adapters/store/notification-outbox';
import { notificationObservations } from './adapters/store/queries/notification-observations';
import { notificationPoster } from './adapters/http/notification-post';
import { notificationSigner } from './adapters/signing/notification-signer';
import { evaluateNotifications } from './domain/evaluate-notifications';
import { sendDueNotifications } from './domain/send-notifications';
import { NotificationLoop } from './entry/timers/notification-loop';
import { randomUUID } from 'node:crypto';

export { configSchema } from './config';

/** How long a notification's POST may take in all. */
const NOTIFICATION_TIMEOUT_MS = 10_000;

/** Every topic the delivery log reads (logical names). */
const PROJECTED_TOPICS = [
  TopicNames.partnerConfig,
  TopicNames.partnerEvents,
  TopicNames.partnerDocuments,
  TopicNames.inboundRejections,
  TopicNames.inboundReplays,
  TopicNames.documentDlq,
  TopicNames.callbackRequests,
  TopicNames.callbackOutcomes,
  TopicNames.callbackDlq,
  TopicNames.policyStatusDlq,
  TopicNames.dlqReplayAudit,
  TopicNames.adminAudit,
];

/** Composition root of the delivery log: the projection of the topics into its store, and the APIs that read it. */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    tracing,
    service: 'delivery-log',
    configSchema,
    // Also read whole (operators) and written (with admin-audit) by the operator API.
    topics: [...PROJECTED_TOPICS, TopicNames.operators],
    // Partners sign in to the portal with their inbound API key.
    apiKeyHasher: (config) => new ApiKeyHasher(config.HOOKSTREAM_API_KEY_PEPPERS),
    env,
  });
  const { config, logger } = runtime;
  const location: StoreLocation = {
    url: config.DELIVERY_LOG_DATABASE_URL,
    maxConnections: config.DELIVERY_LOG_DATABASE_CONNECTIONS,
    logger: logger.child({ module: 'store' }),
  };
  const store = await openStore(location);
  runtime.shutdown.onStop('delivery log store', () => store.close(), 'connections');
  logger.info('delivery log store open and migrated');

  runtime.startMonitor(
    'retention',
    new Pruner({ db: store.db, logger, retentionDays: config.DELIVERY_LOG_RETENTION_DAYS, intervalMs: 10 * 60_000 }),
  );

  const metrics = createDeliveryLogMetrics(runtime.metrics);
  const groupId = `${config.TOPIC_PREFIX}${config.DELIVERY_LOG_GROUP}`;
  const topics = new Map(PROJECTED_TOPICS.map((name) => [runtime.topics.get(name)!.topic, name]));
  const projection = new DeliveryLogProjection({
    kafka: runtime.kafka,
    codec: runtime.codec,
    db: store.db,
    logger,
    metrics,
    groupId,
    session: groupSessionOf(config),
    topics,
    concurrency: 4,
  });
  runtime.startInBackground('projection', projection, () => projection.joined);
  runtime.startMonitor(
    'consumer-lag',
    new ConsumerLagMonitor({
      kafka: runtime.kafka,
      logger,
      groups: [{ groupId, topics: [...topics.keys()] }],
      gauges: consumerLagGauges(runtime.metrics),
      intervalMs: config.CONSUMER_LAG_INTERVAL_MS,
    }),
  );
  const hasher = new ApiKeyHasher(config.HOOKSTREAM_API_KEY_PEPPERS);
  const operators = new OperatorDirectory({
    kafka: runtime.kafka,
    codec: runtime.codec,
    topic: runtime.topics.get(TopicNames.operators)!.topic,
    logger,
    hasher,
  });
  runtime.startInBackground('operators', operators, () => operators.ready);
  const audit = new AuditedWriter(runtime.kafka, runtime.codec, config.TOPIC_PREFIX);
  runtime.shutdown.onStop('audited writer', () => audit.close(), 'producers');
  const policyPaths = policyBodyFieldPaths(defaultSchemasDir(env));
  const box = new SecretBox(config.HOOKSTREAM_SECRETS_KEYS);
  const changes = new PartnerChanges(runtime.partners, audit, () => ({
    box,
    hasher,
    policyPaths,
  }));

  const deadLetters = new DeadLetterSessions({
    kafka: runtime.kafka,
    codec: runtime.codec,
    logger,
    topicPrefix: config.TOPIC_PREFIX,
    maxReplays: config.DLQ_MAX_REPLAYS,
  });
  const lanes = new ReplayLanes();
  const requested = new RequestedCallbacks(audit);
  const callbackDlq = await deadLetters.of('callback');
  const perHour = config.DELIVERY_LOG_RESENDS_PER_HOUR;
  // How long a retry now holds its delivery's claim when its outcome never comes: the endpoint's timeout and a margin.
  const retryNowInFlight = (delivery: Parameters<typeof retryNowInFlightMs>[1]) => retryNowInFlightMs(runtime.partners, delivery);
  const testEvents = {
    partners: runtime.partners,
    samplePolicy: readSamplePolicy(defaultSchemasDir(env)),
    callbacks: requested,
    perMinute: config.DELIVERY_LOG_TEST_EVENTS_PER_MINUTE,
    // The sender's pick-up and the projection's lag, on top of the endpoint's own timeout.
    graceMs: 5_000,
    sleep,
  };
  // The partner API's only way to the store: a handle per caller, its use cases on stores bound to it.
  const forPartner = partnerScopes<PartnerUseCases>(
    store.db,
    { resendsPerHour: perHour, testEventsPerMinute: config.DELIVERY_LOG_TEST_EVENTS_PER_MINUTE },
    (stores) => {
      const retrier = new DeliveryRetrier(stores.retries, requested, perHour, retryNowInFlight);
      return {
        resender: new DeliveryResender(stores.resends, callbackDlq, lanes, { perHour }),
        recovery: new DeadLetterRecovery(stores.recoveries, callbackDlq, lanes),
        retrier,
        failingRetry: new FailingDeliveriesRetry(stores.failing, retrier),
        sendTestEvent: (endpointId, status) => sendTestEvent({ ...testEvents, ...stores.testEvents }, stores.partnerId, endpointId, status),
        places: stores.places,
        notifications: stores.notifications,
      };
    },
  );
  // Every session and portal link signed, in the store all replicas share: revocable everywhere at once.
  const issuedCredentials = new IssuedCredentials(store.db);
  const api = apiRouter({
    db: store.db,
    partners: runtime.partners,
    operators,
    portalTokens: new PortalTokens(config.HOOKSTREAM_PORTAL_TOKEN_KEYS, issuedCredentials),
    issuedCredentials,
    // Console sessions are signed with the portal token keys, for another audience.
    sessions: new ConsoleSessions(config.HOOKSTREAM_PORTAL_TOKEN_KEYS, issuedCredentials),
    traceUrl: config.DELIVERY_LOG_TRACE_URL,
    samplePolicy: testEvents.samplePolicy,
    forPartner,
    lanes,
    // An operator's retry now reads any partner's delivery, as the store's own user.
    retrier: new DeliveryRetrier(retryStore(store.db, perHour), requested, perHour, retryNowInFlight),
    retryDelaysMs: config.CALLBACK_RETRY_DELAYS_MS,
    changes,
    audit,
    keyRotationOverlapHours: config.DELIVERY_LOG_KEY_ROTATION_OVERLAP_HOURS,
    urlGuard: callbackUrlGuard(config.SSRF_ALLOW),
    endpointChangesPerHour: config.DELIVERY_LOG_ENDPOINT_CHANGES_PER_HOUR,
    signingSecretOverlapHours: config.DELIVERY_LOG_SIGNING_SECRET_OVERLAP_HOURS,
    deadLetters,
    logger,
    draining: () => runtime.shutdown.draining,
    partnerRequestsPerSecond: config.DELIVERY_LOG_PARTNER_REQUESTS_PER_SECOND,
    notificationSettings: {
      failingAfterMinutes: config.DELIVERY_LOG_NOTIFY_FAILING_MINUTES,
      perHour: config.DELIVERY_LOG_NOTIFICATIONS_PER_HOUR,
    },
  });

  // Operational notifications (docs/notifications.md): judged and sent by every replica, each transition once.
  const outbox = notificationOutbox(store.db, config.DELIVERY_LOG_NOTIFICATIONS_PER_HOUR);
  const poster = notificationPoster({ allow: config.SSRF_ALLOW, timeoutMs: NOTIFICATION_TIMEOUT_MS });
  runtime.shutdown.onStop('notification connections', () => poster.close(), 'connections');
  const evaluator = {
    transitions: outbox,
    observe: notificationObservations(store.db, config.DELIVERY_LOG_NOTIFY_FAILING_MINUTES * 60_000),
    partners: runtime.partners,
    newId: randomUUID,
  };
  const sender = {
    sending: outbox,
    partners: runtime.partners,
    sign: notificationSigner(box),
    post: poster.post,
    retryDelaysMs: config.DELIVERY_LOG_NOTIFICATION_RETRY_DELAYS_MS,
    counted: (type: string, outcome: string) => metrics.notifications.inc({ type, outcome }),
    now: () => new Date(),
  };
  runtime.startMonitor(
    'notifications',
    new NotificationLoop({
      evaluate: () => evaluateNotifications(evaluator, new Date()),
      // A claim outlives the attempt's timeout: no other replica takes it while it is in flight.
      send: () => sendDueNotifications(sender, 6 * NOTIFICATION_TIMEOUT_MS),
      logger: logger.child({ module: 'notifications' }),
      intervalMs: config.DELIVERY_LOG_NOTIFICATION_INTERVAL_MS,
    }),
  );
  runtime.app.use(api.router);
  const server = await runtime.listen({ notFound: api.notFound, onError: api.onError });
  return { runtime, server, projection, store };
}

if (require.main === module) runService('delivery-log', () => main());
