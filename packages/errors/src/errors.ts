/**
 * One list of error codes for every Hookstream service. Recognise errors by `code`
 * (see {@link hasErrorCode}), not only by `instanceof`: errors cross package and
 * process boundaries (logs, DLQ headers) where classes do not survive.
 */
export const ErrorCodes = {
  /** A setting from the environment is missing or malformed; the process exits. */
  CONFIG_INVALID: 'HOOKSTREAM_CONFIG_INVALID',
  /** Kafka could not be reached or refused a request that may succeed later. */
  KAFKA_UNAVAILABLE: 'HOOKSTREAM_KAFKA_UNAVAILABLE',
  /** The schema registry could not be reached or answered 5xx. */
  REGISTRY_UNAVAILABLE: 'HOOKSTREAM_REGISTRY_UNAVAILABLE',
  /** The registry refused a schema as incompatible with the subject's earlier versions. */
  SCHEMA_INCOMPATIBLE: 'HOOKSTREAM_SCHEMA_INCOMPATIBLE',
  /** A value does not fit its Avro schema, or bytes are not a decodable Confluent-framed record. */
  AVRO_INVALID: 'HOOKSTREAM_AVRO_INVALID',
  /** A policy-status event is refused at publishing; every problem is named by field path. */
  POLICY_EVENT_INVALID: 'HOOKSTREAM_POLICY_EVENT_INVALID',
  /** A policy cannot be turned into a partner's callback body; the event is dead-lettered. */
  CALLBACK_BODY_INVALID: 'HOOKSTREAM_CALLBACK_BODY_INVALID',
  /** A partner spec, or a change to a partner, is refused; every problem is named by field path. */
  PARTNER_SPEC_INVALID: 'HOOKSTREAM_PARTNER_SPEC_INVALID',
  /** A change to a partner is refused for what the partner is now (a limit of its keys, its rotations, a stale revision); nothing written. */
  PARTNER_CHANGE_REFUSED: 'HOOKSTREAM_PARTNER_CHANGE_REFUSED',
  /** An operator's name or role is refused (`hookstream operators create`, the operator API); every problem is named by field. */
  OPERATOR_INPUT_INVALID: 'HOOKSTREAM_OPERATOR_INPUT_INVALID',
  /** The local stack (Kafka, registry) could not be fetched, started or stopped. */
  STACK_FAILED: 'HOOKSTREAM_STACK_FAILED',
  /** A topic exists with settings other than the wanted ones and could not be reconciled. */
  TOPIC_DRIFT: 'HOOKSTREAM_TOPIC_DRIFT',
  /** The service's PostgreSQL store could not be reached or refused a request that may succeed later. */
  STORE_UNAVAILABLE: 'HOOKSTREAM_STORE_UNAVAILABLE',
  /** Shutdown did not finish in time. */
  SHUTDOWN_TIMEOUT: 'HOOKSTREAM_SHUTDOWN_TIMEOUT',
  /** Callback signing: the partner's outbound auth cannot be used as stored (a secret does not decrypt or is malformed). */
  SIGNING_CONFIG_INVALID: 'HOOKSTREAM_SIGNING_CONFIG_INVALID',
  /** Callback signing: the body cannot be signed as the contract asks (MD5 over a body that is not a JSON object). */
  SIGNATURE_INPUT_INVALID: 'HOOKSTREAM_SIGNATURE_INPUT_INVALID',
  /** Callback signing, BEARER_FETCHED: the partner's token endpoint failed, timed out or answered without a token; may succeed later. */
  TOKEN_FETCH_FAILED: 'HOOKSTREAM_TOKEN_FETCH_FAILED',
  /** A connection would reach an address range the SSRF guard refuses (private, loopback, metadata…). */
  SSRF_REFUSED: 'HOOKSTREAM_SSRF_REFUSED',
  /** The ingress refuses or cannot take a webhook; the HTTP status and the contract's error_code say which. */
  INBOUND_REFUSED: 'HOOKSTREAM_INBOUND_REFUSED',
  /** The delivery log's partner or operator API refuses a request; the HTTP status and error_code say which. */
  API_REFUSED: 'HOOKSTREAM_API_REFUSED',
  /** A CLI command refuses the operator's input (a flag, a file, a field): exit 2, nothing written. */
  USAGE_INVALID: 'HOOKSTREAM_USAGE_INVALID',
  /** Ctrl-C (SIGINT) or SIGTERM stopped a CLI command before it finished: exit 130. */
  INTERRUPTED: 'HOOKSTREAM_INTERRUPTED',
  /** A CLI command names something that does not exist (a partner id): exit 3. */
  NOT_FOUND: 'HOOKSTREAM_NOT_FOUND',
  /** A process `hookstream start` supervises kept crashing (or could not be started again), and was given up on. */
  PROCESS_GAVE_UP: 'HOOKSTREAM_PROCESS_GAVE_UP',
  /** A service started as a child process (by the CLI, a bench, a test) ended, or did not answer /readyz with 200, before its deadline. */
  SERVICE_NOT_READY: 'HOOKSTREAM_SERVICE_NOT_READY',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export interface HookstreamErrorOptions {
  cause?: unknown;
  /** Whether the same operation may succeed if tried again later. Default false. */
  retryable?: boolean;
  /** Extra structured facts for logs; never secrets. */
  details?: Record<string, unknown>;
}

/** Base of every error Hookstream throws on purpose. */
export class HookstreamError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: HookstreamErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
}

/** Thrown at start-up when the environment does not satisfy the service's config schema. */
export class ConfigError extends HookstreamError {
  /** One entry per bad variable: its name and what is wrong with it. */
  readonly problems: ReadonlyArray<{ variable: string; message: string }>;

  constructor(problems: ReadonlyArray<{ variable: string; message: string }>) {
    const lines = problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n');
    super(ErrorCodes.CONFIG_INVALID, `Invalid configuration:\n${lines}`, { details: { problems } });
    this.problems = problems;
  }
}

/** Thrown when Kafka cannot be reached or refuses a request; retryable. */
export class KafkaUnavailableError extends HookstreamError {
  constructor(message: string, cause?: unknown) {
    super(ErrorCodes.KAFKA_UNAVAILABLE, message, { cause, retryable: true });
  }
}

/** Thrown when the service's PostgreSQL store cannot be reached or fails a query that may pass later; retryable. */
export class StoreUnavailableError extends HookstreamError {
  constructor(message: string, cause?: unknown) {
    super(ErrorCodes.STORE_UNAVAILABLE, message, { cause, retryable: true });
  }
}

/** Thrown when the schema registry cannot be reached or answers 5xx; retryable. */
export class RegistryUnavailableError extends HookstreamError {
  constructor(message: string, cause?: unknown) {
    super(ErrorCodes.REGISTRY_UNAVAILABLE, message, { cause, retryable: true });
  }
}

/** Thrown when the registry refuses a schema version as incompatible (HTTP 409); not retryable. */
export class SchemaIncompatibleError extends HookstreamError {
  constructor(subject: string, cause?: unknown) {
    super(ErrorCodes.SCHEMA_INCOMPATIBLE, `Schema for subject "${subject}" is incompatible with its earlier versions`, {
      cause,
      details: { subject },
    });
  }
}

/** Thrown when a value cannot be Avro-encoded for its topic or bytes cannot be decoded; not retryable. */
export class AvroInvalidError extends HookstreamError {
  constructor(message: string, options: HookstreamErrorOptions = {}) {
    super(ErrorCodes.AVRO_INVALID, message, options);
  }
}

/** Thrown when the local stack cannot be fetched, started or stopped; the message says what is missing. */
export class StackError extends HookstreamError {
  constructor(message: string, options: HookstreamErrorOptions = {}) {
    super(ErrorCodes.STACK_FAILED, message, options);
  }
}

/** True when `error` is a HookstreamError (or a look-alike from another copy of this package) with `code`. */
export function hasErrorCode(error: unknown, code: ErrorCode): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** Whether trying the failed operation again may succeed. Unknown errors are not retryable. */
export function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

/** The message of anything thrown, for logs and CLI output. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
