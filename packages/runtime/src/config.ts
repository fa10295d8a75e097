import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '@hookstream/errors';
import { parseKeyring } from './secrets/secret-box';

/**
 * Settings every service reads from the environment. Each service extends this with
 * its own, validates once at start-up with {@link loadConfig} and exits on error.
 * Every variable is documented, with its default, in `.env.example`.
 */

/** A comma-separated list of host:port pairs. */
const brokerList = z
  .string()
  .trim()
  .min(1, 'must list at least one broker as host:port')
  .transform((value) =>
    value
      .split(',')
      .map((b) => b.trim())
      .filter((b) => b.length > 0),
  )
  .pipe(
    z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'each broker must be host:port')).min(1, 'must list at least one broker as host:port'),
  );

const httpUrl = z
  .string()
  .trim()
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL')
  // fetch refuses URLs with credentials, and they would be printed wherever the URL is.
  .refine((value) => {
    try {
      const url = new URL(value);
      return !url.username && !url.password;
    } catch {
      return true;
    }
  }, 'must not contain credentials')
  .transform((value) => value.replace(/\/+$/, ''));

/** KAFKA_SECURITY_PROTOCOL's values (the Java client's security.protocol). */
export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
/** KAFKA_SASL_MECHANISM's values (the Java client's sasl.mechanism). */
export const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

/** Whether `file` can be read and holds at least one PEM certificate. */
function holdsPemCertificates(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').includes('-----BEGIN CERTIFICATE-----');
  } catch {
    return false;
  }
}

const port = z.coerce.number().int('must be a whole number').min(0).max(65535, 'must be a port from 0 to 65535');
const positiveInt = z.coerce.number().int('must be a whole number').positive('must be greater than 0');

export const kafkaSettingsSchema = z.object({
  /** Kafka bootstrap brokers, comma-separated host:port. Required. */
  KAFKA_BROKERS: brokerList,
  /** Confluent-compatible schema registry base URL (for Apicurio: …/apis/ccompat/v7). Required. */
  SCHEMA_REGISTRY_URL: httpUrl,
  /** Prefix put before every topic name (and so every subject name). Default: none. */
  TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, 'may hold only letters, digits, ".", "_" and "-"')
    .default(''),
  /** Kafka client connection timeout in ms. Default 3000. */
  KAFKA_CONNECTION_TIMEOUT_MS: positiveInt.default(3000),
  /** Kafka request timeout in ms. Default 30000. */
  KAFKA_REQUEST_TIMEOUT_MS: positiveInt.default(30000),
  /** How the Kafka clients talk to the brokers: PLAINTEXT, SSL (TLS), SASL_PLAINTEXT or SASL_SSL. Default PLAINTEXT. */
  KAFKA_SECURITY_PROTOCOL: z
    .string()
    .trim()
    .toUpperCase()
    .pipe(z.enum(SECURITY_PROTOCOLS, 'must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL'))
    .default('PLAINTEXT'),
  /** PEM file of the CA certificates the brokers' certificates are checked against (SSL, SASL_SSL). Default: the system's CAs. */
  KAFKA_SSL_CA_FILE: z.string().trim().refine(holdsPemCertificates, 'must be a readable PEM file of CA certificates').optional(),
  /** SASL mechanism (SASL_PLAINTEXT, SASL_SSL): PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512. Required with SASL. */
  KAFKA_SASL_MECHANISM: z
    .string()
    .trim()
    .toUpperCase()
    .pipe(z.enum(SASL_MECHANISMS, 'must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512'))
    .optional(),
  /** SASL user name. Required with SASL. */
  KAFKA_SASL_USERNAME: z.string().optional(),
  /** SASL password. Required with SASL; never logged. */
  KAFKA_SASL_PASSWORD: z.string().optional(),
});

/**
 * What the Kafka security settings need of each other (checked by {@link loadConfig} for every
 * schema holding them, as a refinement would stop the schemas extending and omitting): SASL needs a
 * mechanism, user name and password, which mean nothing without SASL, and a CA file means nothing without TLS.
 */
function kafkaSecurityProblems(env: Record<string, string>): Array<{ variable: string; message: string }> {
  const protocol = (env.KAFKA_SECURITY_PROTOCOL ?? 'PLAINTEXT').trim().toUpperCase();
  if (!(SECURITY_PROTOCOLS as readonly string[]).includes(protocol)) return [];
  const sasl = ['KAFKA_SASL_MECHANISM', 'KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'];
  const problems = protocol.startsWith('SASL_')
    ? sasl.filter((v) => !(v in env)).map((variable) => ({ variable, message: `is required when KAFKA_SECURITY_PROTOCOL is ${protocol}` }))
    : sasl
        .filter((v) => v in env)
        .map((variable) => ({ variable, message: `is set, but KAFKA_SECURITY_PROTOCOL ${protocol} uses no SASL` }));
  if ('KAFKA_SSL_CA_FILE' in env && !protocol.endsWith('SSL')) {
    problems.push({ variable: 'KAFKA_SSL_CA_FILE', message: `is set, but KAFKA_SECURITY_PROTOCOL ${protocol} uses no TLS` });
  }
  return problems;
}

export const serviceSettingsSchema = kafkaSettingsSchema.extend({
  /** pino level: fatal, error, warn, info, debug, trace or silent. Default info. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Interface the HTTP server binds. Default 127.0.0.1 (containers set 0.0.0.0). */
  HTTP_HOST: z.string().trim().min(1).default('127.0.0.1'),
  /** Name of this replica in logs and client ids. Default: hostname-pid. */
  SERVICE_INSTANCE_ID: z.string().trim().min(1).optional(),
  /**
   * How long a graceful shutdown (SIGTERM/SIGINT) may take before the process exits anyway (code 1),
   * in ms. Work in flight gets 3/4 of it; what is not done by then is handed back (left uncommitted
   * for the next owner), and the rest is for committing and closing. Default 10000.
   */
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10000),
  /**
   * Consumer-group session in ms: a member that has not heartbeated for this long is declared dead
   * and its partitions move to the others. It bounds failover after a crash; a longer one only
   * tolerates longer stalls. Default 10000 (brokers refuse less than their group.min.session.timeout.ms, 6000 by default).
   */
  KAFKA_SESSION_TIMEOUT_MS: positiveInt.min(6000, 'must be at least 6000 (the broker default minimum)').default(10000),
  /**
   * This replica's static group membership (KIP-345), unique per replica and stable across its
   * restarts (a StatefulSet pod's name, `hookstream start`'s `<service>-<n>`): a replica killed and
   * started again takes its partitions back at once instead of after KAFKA_SESSION_TIMEOUT_MS. A
   * replica stopped for good keeps its partitions idle for one session. Unset: dynamic membership.
   */
  KAFKA_GROUP_INSTANCE_ID: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be 1 to 200 letters, digits, ".", "_" or "-"')
    .optional(),
  /** How often a group member heartbeats, in ms; keep it under a third of the session. Default 1000. */
  KAFKA_HEARTBEAT_INTERVAL_MS: positiveInt.default(1000),
});

export type ServiceSettings = z.infer<typeof serviceSettingsSchema>;

/** Builds a service's schema: the shared settings plus HTTP_PORT with the service's own default. */
export function serviceSchemaWithPort(defaultPort: number) {
  return serviceSettingsSchema.extend({
    /** Port of the service's HTTP server: its API, or (with no API) /metrics, /healthz, /readyz. 0 picks a free one. */
    HTTP_PORT: port.default(defaultPort),
  });
}

/**
 * Builds the schema of a service with a public API (the ingress, the delivery log): HTTP_PORT
 * serves only that API, and /metrics, /healthz and /readyz are on OPS_PORT, so that whoever can
 * reach the API cannot read every partner's counts off /metrics, nor the readiness checks' errors.
 */
export function serviceSchemaWithOpsPort(defaultPort: number, defaultOpsPort: number) {
  return serviceSchemaWithPort(defaultPort).extend({
    /** Port of the ops listener (/metrics, /healthz, /readyz); must differ from HTTP_PORT. 0 picks a free one. */
    OPS_PORT: port.default(defaultOpsPort),
    /** Interface the ops listener binds. Default: HTTP_HOST's (containers set 0.0.0.0 so Prometheus can scrape). */
    OPS_HOST: z.string().trim().min(1).optional(),
  });
}

/** Two listeners cannot share a port (0 asks for a free one each); checked here as a refinement would stop the schemas extending. */
function portProblems(config: unknown): Array<{ variable: string; message: string }> {
  const { HTTP_PORT, OPS_PORT } = config as { HTTP_PORT?: number; OPS_PORT?: number };
  if (OPS_PORT === undefined || OPS_PORT === 0 || OPS_PORT !== HTTP_PORT) return [];
  return [{ variable: 'OPS_PORT', message: `must differ from HTTP_PORT (${HTTP_PORT}): the ops routes are served apart from the API` }];
}

/**
 * Validates `env` against `schema`. Throws a {@link ConfigError} naming every bad variable
 * (not only the first), so an operator fixes the environment in one go.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  // Empty strings mean "not set": docker-compose and .env files often leave `VAR=`.
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  const crossProblems = [
    ...(schema instanceof z.ZodObject && 'KAFKA_SECURITY_PROTOCOL' in schema.shape ? kafkaSecurityProblems(cleaned) : []),
    ...(result.success ? portProblems(result.data) : []),
  ];
  if (result.success && crossProblems.length === 0) return result.data;
  const problems = (result.error?.issues ?? []).map((issue) => {
    const variable = issue.path.length > 0 ? String(issue.path[0]) : '(environment)';
    // A check across settings (custom) may name one left at its default: its own message says why.
    return { variable, message: variable in cleaned || issue.code === 'custom' ? issue.message : 'is required but not set' };
  });
  throw new ConfigError([...problems, ...crossProblems]);
}

const keyring = (variable: string, minBytes: number, exactBytes?: number) =>
  z.string().transform((value, ctx) => {
    try {
      return parseKeyring(value, variable, minBytes, exactBytes);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(`${variable} `, '') });
      return z.NEVER;
    }
  });

/** Keys that encrypt partner secrets at rest (AES-256-GCM): `id:base64(32 bytes)`, comma-separated, newest first. */
export const secretsKeysSetting = { HOOKSTREAM_SECRETS_KEYS: keyring('HOOKSTREAM_SECRETS_KEYS', 32, 32) };
/** Peppers of the inbound API key hashes (HMAC-SHA-256): `id:base64(≥32 bytes)`, comma-separated, newest first. */
export const apiKeyPeppersSetting = { HOOKSTREAM_API_KEY_PEPPERS: keyring('HOOKSTREAM_API_KEY_PEPPERS', 32) };
/** Keys that sign the partner portal's tokens (HS256): `id:base64(≥32 bytes)`, comma-separated, newest first (it signs; all verify). */
export const portalTokenKeysSetting = { HOOKSTREAM_PORTAL_TOKEN_KEYS: keyring('HOOKSTREAM_PORTAL_TOKEN_KEYS', 32) };
/**
 * The PostgreSQL store of the services whose state must not live in a replica's heap (the ingress,
 * the callback-sender, the document-fetcher): every replica of each reaches the same database.
 */
export const stateStoreSettings = {
  DATABASE_URL: z
    .string({ error: 'must be set: the postgres:// URL of the store the ingress, callback-sender and document-fetcher share' })
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL'),
  /** Connections to it per replica. Default 10. */
  DATABASE_CONNECTIONS: positiveInt.max(100).default(10),
};
/**
 * How often a consumer service measures its groups' lag (and refreshes its DLQ gauges' view of
 * retention), in ms. Default 10000: fresh for a 15 s scrape, a handful of cheap requests each time.
 */
export const consumerLagSetting = { CONSUMER_LAG_INTERVAL_MS: positiveInt.min(500, 'must be at least 500').default(10_000) };
