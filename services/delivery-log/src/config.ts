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
  /** Consumer group of the projection's replicas. Default hookstream-delivery-log. */
  DELIVERY_LOG_GROUP: z.string().min(1).default('hookstream-delivery-log'),
});

export type DeliveryLogConfig = z.infer<typeof configSchema>;
