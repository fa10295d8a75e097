import { callbackRetryDelaysSetting } from '@hookstream/contract';
import { z } from 'zod';
import { RETRY_TIER_COUNT } from '@hookstream/kafka';
import {
  apiKeyPeppersSetting,
  consumerLagSetting,
  portalTokenKeysSetting,
  secretsKeysSetting,
  serviceSchemaWithOpsPort,
  ssrfAllowSetting,
} from '@hookstream/runtime';

const positiveInt = z.coerce.number().int('must be a whole number').positive('must be greater than 0');

/** The delivery log's settings (all in .env.example with their defaults). */
export const configSchema = serviceSchemaWithOpsPort(8094, 9094).extend({
  ...consumerLagSetting,
  ...apiKeyPeppersSetting,
  ...portalTokenKeysSetting,
  // Onboarding through the operator API encrypts a partner's outbound secrets, as the CLI does.
  ...secretsKeysSetting,
  // A callback URL a partner sets itself is judged by the SSRF guard, with the deployment's allow list (the sender's).
  ...ssrfAllowSetting,
  /**
   * PostgreSQL to keep the log in (postgres://user:password@host:5432/db): required. `npm start`
   * gives it a database of its own (delivery_log) on the local stack's server.
   */
  DELIVERY_LOG_DATABASE_URL: z
    .string({ error: 'must be set: the postgres:// URL of the database the delivery log is kept in' })
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL'),
  /** Connections to PostgreSQL per replica. Default 10. */
  DELIVERY_LOG_DATABASE_CONNECTIONS: positiveInt.max(100).default(10),
  /** How long the log keeps a delivery, webhook or dead letter, in days (pruned every 10 minutes). Default 30. */
  DELIVERY_LOG_RETENTION_DAYS: positiveInt.max(3650).default(30),
  /** Resends one partner may make in an hour through the partner API. Default 60. */
  DELIVERY_LOG_RESENDS_PER_HOUR: positiveInt.max(100_000).default(60),
  /**
   * Requests one partner may make to one replica per second through the partner API, counted in
   * windows of 10 s (429 with Retry-After past it). Default 20: see docs/delivery-log.md.
   */
  DELIVERY_LOG_PARTNER_REQUESTS_PER_SECOND: positiveInt.max(100_000).default(20),
  /** Replays of one delivery after which a resend is refused (as `hookstream dlq replay` without --force). Default 5. */
  DLQ_MAX_REPLAYS: positiveInt.default(5),
  /** How long a partner's other API keys keep working after it rotates its key through the partner API, in hours. Default 24. */
  DELIVERY_LOG_KEY_ROTATION_OVERLAP_HOURS: z.coerce.number().min(0).max(720).default(24),
  /** The callback-sender's retry tiers (set it as the sender's): what a failing delivery's schedule shows is left. */
  ...callbackRetryDelaysSetting(RETRY_TIER_COUNT),
  /** Test events one partner may send in a minute through the partner API. Default 10. */
  DELIVERY_LOG_TEST_EVENTS_PER_MINUTE: positiveInt.max(1000).default(10),
  /** Changes one partner may make to its own callback endpoints in an hour through the partner API. Default 30. */
  DELIVERY_LOG_ENDPOINT_CHANGES_PER_HOUR: positiveInt.max(10_000).default(30),
  /**
   * After a partner rotates its signing secret: how long the old Standard Webhooks secret keeps
   * signing beside the new one, or how long a new HMAC_SHA256 secret waits before it signs, in hours. Default 24.
   */
  DELIVERY_LOG_SIGNING_SECRET_OVERLAP_HOURS: z.coerce.number().min(0).max(720).default(24),
  /**
   * Where an operator opens a trace (docs/tracing.md): the trace store's page of one trace, with
   * {trace_id} where the id goes (Jaeger: http://jaeger:16686/trace/{trace_id}). Unset (the default):
   * the console shows trace ids without a link. `npm start` sets it to its own Jaeger.
   */
  DELIVERY_LOG_TRACE_URL: z
    .string()
    .regex(/^https?:\/\/\S*\{trace_id\}\S*$/, 'must be an http(s) URL with {trace_id} where the trace id goes')
    .optional(),
  /** Operational notifications (docs/notifications.md): how long an endpoint's sends fail, with no success, before it is notified as failing, in minutes. Default 5. */
  DELIVERY_LOG_NOTIFY_FAILING_MINUTES: z.coerce.number().positive().max(1440).default(5),
  /** Notifications one partner is sent in an hour at most (those past it are kept, marked suppressed). Default 20. */
  DELIVERY_LOG_NOTIFICATIONS_PER_HOUR: positiveInt.max(10_000).default(20),
  /** How often each replica judges the subscribed partners and sends what is due, in ms. Default 15000. */
  DELIVERY_LOG_NOTIFICATION_INTERVAL_MS: positiveInt.min(100).max(600_000).default(15_000),
  /**
   * The waits after each failed notification attempt, in ms, comma-separated: a notification is given
   * up after one attempt more than there are waits. Default 60000,300000,600000,1200000,1800000 (6 attempts over about 66 minutes).
   */
  DELIVERY_LOG_NOTIFICATION_RETRY_DELAYS_MS: z
    .string()
    .default('60000,300000,600000,1200000,1800000')
    .transform((text) => text.split(',').map((part) => Number(part.trim())))
    .refine((delays) => delays.length <= 20 && delays.every((d) => Number.isInteger(d) && d >= 0 && d <= 86_400_000), {
      message: 'must be up to 20 whole numbers of ms (0 to 86400000), comma-separated',
    }),
  /** Consumer group of the projection's replicas. Default hookstream-delivery-log. */
  DELIVERY_LOG_GROUP: z.string().min(1).default('hookstream-delivery-log'),
});

export type DeliveryLogConfig = z.infer<typeof configSchema>;
