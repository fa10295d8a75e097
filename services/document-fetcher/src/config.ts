import { z } from 'zod';
import { DOCUMENT_RETRY_TIER_COUNT, retryScheduleMs } from '@hookstream/kafka';
import { consumerLagSetting, serviceSchemaWithPort, ssrfAllowSetting, stateStoreSettings } from '@hookstream/runtime';

const positiveInt = z.coerce.number().int('must be a whole number').positive('must be greater than 0');
const MIB = 1024 * 1024;

/** The document-fetcher's settings (all in .env.example with their defaults; reasons in docs/documents.md). */
export const configSchema = serviceSchemaWithPort(8093)
  .extend({
    ...consumerLagSetting,
    /** The PostgreSQL store of the recorded documents (DATABASE_URL, required; DATABASE_CONNECTIONS, default 10). */
    ...stateStoreSettings,
    /** Address ranges document URLs (and their redirects) may resolve to despite the SSRF guard. Default none. */
    ...ssrfAllowSetting,
    /** Consumer group of the replicas (its retry tiers' group adds -retries, the feed of recorded documents -recorded). Default hookstream-document-fetcher. */
    FETCHER_CONSUMER_GROUP: z.string().min(1).default('hookstream-document-fetcher'),
    /** Where documents are stored: `local` (a directory) or `s3` (S3-compatible storage). Default local. */
    DOCUMENT_STORAGE: z.enum(['local', 's3']).default('local'),
    /** The local store's directory (relative to the working directory). Default .hookstream/documents. */
    DOCUMENT_STORAGE_DIR: z.string().min(1).default('.hookstream/documents'),
    /** Bucket of the S3 store; required with DOCUMENT_STORAGE=s3. Credentials: the AWS SDK's environment (AWS_ACCESS_KEY_ID, …). */
    DOCUMENT_S3_BUCKET: z.string().default(''),
    /** Endpoint of an S3-compatible server (MinIO, S3Proxy); default AWS's. */
    DOCUMENT_S3_ENDPOINT: z.string().url('must be an absolute URL').optional(),
    /** Region of the bucket. Default us-east-1. */
    DOCUMENT_S3_REGION: z.string().min(1).default('us-east-1'),
    /** Path-style addressing (endpoint/bucket/key), as MinIO and S3Proxy want. Default false. */
    DOCUMENT_S3_FORCE_PATH_STYLE: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    /** Put before every object key. Default documents/. */
    DOCUMENT_S3_PREFIX: z.string().default('documents/'),
    /** Where bodies are spooled before an S3 upload. Default: the system's temporary directory. */
    DOCUMENT_SPOOL_DIR: z.string().min(1).optional(),
    /** Largest document accepted, in bytes. Default 52428800 (50 MiB; why: docs/documents.md). */
    DOCUMENT_MAX_BYTES: positiveInt.default(50 * MIB),
    /** Longest wait for a TCP/TLS connection to a document host, in ms. Default 5000. */
    DOCUMENT_CONNECT_TIMEOUT_MS: positiveInt.default(5_000),
    /** Longest one retrieval may take, redirects, headers and body included, in ms. Default 120000 (why: docs/documents.md). */
    DOCUMENT_TIMEOUT_MS: positiveInt.default(120_000),
    /** Most redirects followed, each judged by the SSRF guard. Default 5. */
    DOCUMENT_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
    /** Delay of each document retry tier in ms, comma-separated, one per tier. Default 10 s, 1 min, 10 min, 1 h. */
    DOCUMENT_RETRY_DELAYS_MS: z
      .string()
      .default('10000,60000,600000,3600000')
      .transform((value, ctx) => {
        const delays = value.split(',').map((part) => Number(part.trim()));
        if (delays.length !== DOCUMENT_RETRY_TIER_COUNT || delays.some((d) => !Number.isInteger(d) || d < 0)) {
          ctx.addIssue({
            code: 'custom',
            message: `must list ${DOCUMENT_RETRY_TIER_COUNT} whole numbers of milliseconds, one per retry tier`,
          });
          return z.NEVER;
        }
        return delays;
      }),
    /** Retrievals in flight per partner in this process; more wait their turn. Default 8. */
    FETCHER_PARTNER_CONCURRENCY: positiveInt.max(1024).default(8),
    /** Webhooks (or retries) in flight per partition, waiting for a slot included; bounds memory. Default 256. */
    FETCHER_PARTITION_CONCURRENCY: positiveInt.max(16_384).default(256),
  })
  .superRefine((config, ctx) => {
    if (config.DOCUMENT_STORAGE === 's3' && config.DOCUMENT_S3_BUCKET === '') {
      ctx.addIssue({ code: 'custom', path: ['DOCUMENT_S3_BUCKET'], message: 'is required when DOCUMENT_STORAGE is s3' });
    }
  });

export type DocumentFetcherConfig = z.infer<typeof configSchema>;

/**
 * How long the identities of recorded documents matter (entry/kafka/recorded-feed): a record can be
 * read again while its retries wait, so twice the schedule, and at least a day.
 */
export function recordedWindowMs(config: Pick<DocumentFetcherConfig, 'DOCUMENT_RETRY_DELAYS_MS'>): number {
  return Math.max(2 * retryScheduleMs(config.DOCUMENT_RETRY_DELAYS_MS), 24 * 3600_000);
}
