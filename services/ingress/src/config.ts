import { z } from 'zod';
import { apiKeyPeppersSetting, serviceSchemaWithOpsPort, stateStoreSettings } from '@hookstream/shared';

const positiveInt = z.coerce.number().int('must be a whole number').positive('must be greater than 0');

/** The ingress's settings (all in .env.example with their defaults). */
export const configSchema = serviceSchemaWithOpsPort(8080, 9080).extend({
  ...apiKeyPeppersSetting,
  /** The request_id ledger's PostgreSQL (DATABASE_URL, DATABASE_CONNECTIONS). */
  ...stateStoreSettings,
  /** Prefix of the webhook path: "" serves /api/integration/partner/webhook, "/v1" serves /v1/api/…. Default "". */
  INGRESS_BASE_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'must be empty or a path like /partners (no trailing slash)')
    .default(''),
  /** Largest webhook body accepted, in bytes. Default 1048576 (1 MiB). */
  INGRESS_BODY_LIMIT_BYTES: positiveInt.max(64 * 1024 * 1024).default(1024 * 1024),
  /** Longest a request may wait for Kafka before a retryable 503, in ms. Default 10000. */
  INGRESS_WRITE_TIMEOUT_MS: positiveInt.default(10_000),
  /** How long a request_id is remembered, in hours: its ledger row is deleted after this. Default 24. */
  IDEMPOTENCY_RETENTION_HOURS: z.coerce.number().positive().default(24),
  /** How long a duplicate waits for the original still in flight before a retryable 503, in ms. Default 10000. */
  IDEMPOTENCY_WAIT_MS: positiveInt.default(10_000),
  /** After this long without a completion, a claim may be taken over by a retry, in ms. Default 15000. */
  IDEMPOTENCY_CLAIM_TTL_MS: positiveInt.default(15_000),
});

export type IngressConfig = z.infer<typeof configSchema>;
