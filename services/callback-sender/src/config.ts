import { callbackRetryDelaysSetting } from '@hookstream/contract';
import { z } from 'zod';
import { RETRY_TIER_COUNT, retryScheduleMs } from '@hookstream/kafka';
import { consumerLagSetting, secretsKeysSetting, serviceSchemaWithPort, stateStoreSettings, ssrfAllowSetting } from '@hookstream/runtime';

const positiveInt = z.coerce.number().int('must be a whole number').positive('must be greater than 0');

/** The callback-sender's settings (all in .env.example with their defaults). */
export const configSchema = serviceSchemaWithPort(8092)
  .extend({
    ...secretsKeysSetting,
    ...consumerLagSetting,
    /** The state store holding the newest policy versions for latest-wins (DATABASE_URL, DATABASE_CONNECTIONS). */
    ...stateStoreSettings,
    /** Address ranges callback and token URLs may resolve to despite the SSRF guard (@hookstream/runtime's ssrfAllowSetting). Default none. */
    ...ssrfAllowSetting,
    /** Delay of each retry tier in ms (@hookstream/contract's callbackRetryDelaysSetting; the delivery log reads the same). */
    ...callbackRetryDelaysSetting(RETRY_TIER_COUNT),
    /** Consumer group of the replicas. Default hookstream-callback-sender. */
    SENDER_CONSUMER_GROUP: z.string().min(1).default('hookstream-callback-sender'),
    /** Longest wait for a TCP/TLS connection to a partner, in ms (the endpoint's timeout_ms bounds the whole attempt). Default 5000. */
    SENDER_CONNECT_TIMEOUT_MS: positiveInt.default(5_000),
    /** Keep-alive connections per partner origin. Default 32. */
    SENDER_CONNECTIONS_PER_ORIGIN: positiveInt.max(1024).default(32),
    /** Most bytes of a partner's response body read (only the status counts; the rest is discarded). Default 65536. */
    SENDER_MAX_RESPONSE_BYTES: positiveInt.default(64 * 1024),
    /** How long a callback for a partner not (yet) in partner-config waits for it before it is dead-lettered, in ms. Default 5000. */
    UNKNOWN_PARTNER_GRACE_MS: z.coerce.number().int().min(0).default(5_000),
    /** Deliveries in flight per partner in this process; more wait their turn. Default 64 (16 capped one busy partner at ~4,300/s in bench/outbound-send). */
    SENDER_PARTNER_CONCURRENCY: positiveInt.max(1024).default(64),
    /**
     * A partner's circuit opens (its deliveries then wait in the retry tiers without attempts) when,
     * within BREAKER_WINDOW_MS, at least BREAKER_FAILURE_THRESHOLD attempts failed and they are at
     * least BREAKER_FAILURE_RATE of the attempts counted. Failures are timeouts, refused or reset
     * connections, error answers slower than BREAKER_SLOW_ANSWER_MS, and error answers to a retry;
     * a quick error answer to an event's first attempt is not counted (a flaky partner that takes the
     * retry keeps its circuit closed). Default 5.
     */
    BREAKER_FAILURE_THRESHOLD: positiveInt.default(5),
    /** Least share of failures among the attempts counted in the window that opens a circuit, in (0, 1]. Default 0.5. */
    BREAKER_FAILURE_RATE: z.coerce.number().gt(0, 'must be more than 0').max(1, 'must be at most 1').default(0.5),
    /** How far back a circuit counts attempts, in ms. Default 10000 (the default endpoint timeout: a partner that stops answering opens within about one timeout). */
    BREAKER_WINDOW_MS: positiveInt.default(10_000),
    /** An error answer at least this slow counts as a failure even to a first attempt (it held a slot like a timeout), in ms. Default 5000. */
    BREAKER_SLOW_ANSWER_MS: positiveInt.default(5_000),
    /** How long an open circuit waits before one probe attempt, in ms. Default 30000. */
    BREAKER_OPEN_MS: positiveInt.default(30_000),
    /**
     * Longest a partner's Retry-After (on 429/503) may push its retry out, in ms. The retry goes to
     * the first later tier whose delay covers it, so it is also capped by the longest tier's delay,
     * and never earlier than its own tier's. Default 21600000 (6 h).
     */
    RETRY_AFTER_MAX_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(6 * 3600_000),
    /**
     * Records in flight per partition: attempting, or waiting for their partner's slot (records of
     * one policy always go one after another). It bounds memory; SENDER_PARTNER_CONCURRENCY bounds
     * attempts. Large, so that a slow partner's queued records cannot fill a partition that healthy
     * partners share (64 let a black-holed partner at 500/s push a healthy partner's p99 from 93 to
     * 775 ms in bench/isolation; 1024: 185 ms). Default 1024.
     */
    SENDER_PARTITION_CONCURRENCY: positiveInt.max(16_384).default(1024),
  })
  .superRefine((config, ctx) => {
    // A record skipped while its partner's circuit is open is dead-lettered once it has waited the
    // whole retry schedule (send-callback's skip()); a schedule shorter than one open period would
    // dead-letter a partner's records before its circuit could even probe.
    const schedule = retryScheduleMs(config.CALLBACK_RETRY_DELAYS_MS);
    if (schedule <= config.BREAKER_OPEN_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['CALLBACK_RETRY_DELAYS_MS'],
        message: `the delays add up to ${schedule} ms, which must be more than BREAKER_OPEN_MS (${config.BREAKER_OPEN_MS} ms)`,
      });
    }
  });

export type CallbackSenderConfig = z.infer<typeof configSchema>;

/**
 * How long a policy version is kept after it was last read (adapters/store/latest-versions): a record
 * can wait in the tiers for their delays' sum; twice that, and at least a day, covers replays.
 */
export function versionWindowMs(config: Pick<CallbackSenderConfig, 'CALLBACK_RETRY_DELAYS_MS'>): number {
  return Math.max(2 * retryScheduleMs(config.CALLBACK_RETRY_DELAYS_MS), 24 * 3600_000);
}
