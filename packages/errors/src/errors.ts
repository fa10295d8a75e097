/*
 * The base class of every error Hookstream raises on purpose, and the few kinds several packages
 * raise. Each carries a code of the one list (codes.ts); recognise an error by that code
 * ({@link hasErrorCode}), not by its class: codes cross package and process boundaries (logs, DLQ
 * headers) where classes do not.
 */
import { ErrorCodes, factsOf, type ErrorCode, type RefusalCode } from './codes';

export interface HookstreamErrorOptions {
  cause?: unknown;
  /** Whether the same operation may succeed if tried again later. Default: the code's, in the list. */
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
    this.retryable = options.retryable ?? factsOf(code)?.retryable ?? false;
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

/** Something named does not exist (a partner, operator, API key, dead letter): the CLI exits 3, an API answers 404. */
export class NotFoundError extends HookstreamError {
  constructor(
    /** What was looked for ('partner', 'operator', 'API key', 'dead letter'). */
    readonly kind: string,
    message: string,
  ) {
    super(ErrorCodes.ENTITY_NOT_FOUND, message, { details: { kind } });
  }
}

/** What a refusal answered over HTTP carries beside its code and message. */
export interface RefusalOptions {
  /** The HTTP status, when not the code's own (a 413 answered with INVALID_PAYLOAD_VALIDATION_ERR). */
  httpStatus?: number;
  /** Sent as Retry-After (503, 429). */
  retryAfterSeconds?: number;
  /** The fields at fault, each with its problem: the APIs list them in the body, the ingress records their paths. */
  fields?: readonly { field: string; message: string }[];
}

/**
 * A request refused over HTTP, by the ingress or the delivery log's APIs: its code is the body's
 * error_code and gives its status (codes.ts); each server turns it into its answer in one place.
 */
export class Refusal extends HookstreamError {
  declare readonly code: RefusalCode;
  readonly httpStatus: number;
  readonly retryAfterSeconds: number | undefined;
  readonly fields: readonly { field: string; message: string }[];

  constructor(code: RefusalCode, message: string, options: RefusalOptions = {}) {
    const httpStatus = options.httpStatus ?? factsOf(code)?.httpStatus ?? 500;
    // Whether a retry may help is the code's (the list), whatever status a route answers it with.
    super(code, message, { details: { httpStatus } });
    this.httpStatus = httpStatus;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.fields = options.fields ?? [];
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
