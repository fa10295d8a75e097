import { z } from 'zod';
import { apiKeyPeppersSetting, serviceSchemaWithOpsPort, stateStoreSettings } from '@hookstream/runtime';

/** How much longer than a write may take a claim lasts: the clocks of the database and the replica, a busy event loop. */
export const CLAIM_TTL_MARGIN_MS = 5000;

const positiveInt = z.coerce.number().int('must be a whole number').positive('must be greater than 0');

/** The ingress's settings (all in .env.example with their defaults). */
export const configSchema = serviceSchemaWithOpsPort(8080, 9080)
  .extend({
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
    INGRESS_WRITE_TIMEOUT_MS: positiveInt
      .min(100)
      .max(900_000, "must be at most 900000 (librdkafka's longest delivery timeout)")
      .default(10_000),
    /** How long a request_id is remembered, in hours: its ledger row is deleted after this. Default 24. */
    IDEMPOTENCY_RETENTION_HOURS: z.coerce.number().positive().default(24),
    /** How long a duplicate waits for the original still in flight before a retryable 503, in ms. Default 10000. */
    IDEMPOTENCY_WAIT_MS: positiveInt.default(10_000),
    /**
     * After this long without a completion, a claim may be taken over by a retry, in ms: at least
     * INGRESS_WRITE_TIMEOUT_MS + 5000. Default 15000.
     */
    IDEMPOTENCY_CLAIM_TTL_MS: positiveInt.default(15_000),
  })
  .superRefine((config, ctx) => {
    // The claimant's partner event is written for at most INGRESS_WRITE_TIMEOUT_MS (the producer's
    // delivery timeout, main.ts), then it is durable or failed for good. A takeover any sooner could
    // search partner-events while that write is still being retried, find nothing, write its own,
    // and then see the first one land too: one request_id accepted twice (test/replicas.int.test.ts,
    // with the broker that was also the controller killed).
    const least = config.INGRESS_WRITE_TIMEOUT_MS + CLAIM_TTL_MARGIN_MS;
    if (config.IDEMPOTENCY_CLAIM_TTL_MS < least) {
      ctx.addIssue({
        code: 'custom',
        path: ['IDEMPOTENCY_CLAIM_TTL_MS'],
        message: `must be at least INGRESS_WRITE_TIMEOUT_MS + ${CLAIM_TTL_MARGIN_MS} (${least} ms): a claim must outlive its partner event's write`,
      });
    }
  });

export type IngressConfig = z.infer<typeof configSchema>;
