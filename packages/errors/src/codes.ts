/**
 * The one list of error codes. Every error Hookstream raises on purpose carries one of these as its
 * `code`, and everything that reacts to an error (an HTTP answer, a CLI exit code, a retry, a
 * dead-letter header) recognises it by that code, not by its class: codes survive logs, processes
 * and Kafka headers, classes do not.
 *
 * Two kinds share the list:
 * - Refusals answered over HTTP, by the ingress and the delivery log's partner and operator APIs:
 *   the code is the body's `error_code` and has the HTTP status it is answered with by default.
 *   INVALID_PAYLOAD_VALIDATION_ERR and INVALID_API_KEY_ERR are the interface contract's own names.
 * - Failures inside Hookstream (HOOKSTREAM_*): in logs, CLI messages and dead-letter headers.
 *
 * `retryable` says whether the same operation may succeed if tried again later unchanged.
 */
export interface CodeFacts {
  readonly code: string;
  readonly when: string;
  readonly retryable: boolean;
  /** Refusals only: the HTTP status they are answered with (a route may answer another, e.g. 413 for a body too large). */
  readonly httpStatus?: number;
}

export const ERROR_CATALOGUE = {
  // Refusals answered over HTTP (the body's error_code).
  INVALID_PAYLOAD: {
    code: 'INVALID_PAYLOAD_VALIDATION_ERR',
    httpStatus: 400,
    retryable: false,
    when: 'A body, field, header or parameter is missing or invalid; the message (and the APIs’ `fields`) names each.',
  },
  INVALID_API_KEY: {
    code: 'INVALID_API_KEY_ERR',
    httpStatus: 401,
    retryable: false,
    when: 'No credentials, or an API key, token or session that is unknown, revoked, expired or of a disabled partner.',
  },
  PARTNER_DISABLED: {
    code: 'PARTNER_DISABLED_ERR',
    httpStatus: 401,
    retryable: false,
    when: 'A console session or portal link of a partner account the insurer disabled, until it is enabled again.',
  },
  FORBIDDEN: {
    code: 'FORBIDDEN_ERR',
    httpStatus: 403,
    retryable: false,
    when: 'The credentials are good but may not do this (a viewer writing, a write without its CSRF token).',
  },
  NOT_FOUND: {
    code: 'NOT_FOUND_ERR',
    httpStatus: 404,
    retryable: false,
    when: 'No route, or nothing by that id the caller may see (another partner’s is not found either).',
  },
  METHOD_NOT_ALLOWED: {
    code: 'METHOD_NOT_ALLOWED_ERR',
    httpStatus: 405,
    retryable: false,
    when: 'The path exists but not for this HTTP method.',
  },
  REQUEST_TIMEOUT: {
    code: 'REQUEST_TIMEOUT_ERR',
    httpStatus: 408,
    retryable: true,
    when: 'The request did not arrive in time; the connection is closed.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    code: 'IDEMPOTENCY_KEY_REUSED_ERR',
    httpStatus: 409,
    retryable: false,
    when: 'A webhook’s request_id was already used for a different body.',
  },
  CONFLICT: {
    code: 'CONFLICT_ERR',
    httpStatus: 409,
    retryable: false,
    when: 'The request conflicts with what the resource is now (a superseded delivery’s resend, a limit of live keys).',
  },
  PAYLOAD_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE_ERR',
    httpStatus: 413,
    retryable: false,
    when: 'The body is larger than the endpoint takes.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE_ERR',
    httpStatus: 415,
    retryable: false,
    when: 'The body is not application/json.',
  },
  TOO_MANY_REQUESTS: {
    code: 'TOO_MANY_REQUESTS_ERR',
    httpStatus: 429,
    retryable: true,
    when: 'Too many requests of this kind for this caller; try again after Retry-After.',
  },
  HEADERS_TOO_LARGE: {
    code: 'REQUEST_HEADERS_TOO_LARGE_ERR',
    httpStatus: 431,
    retryable: false,
    when: 'The request’s headers are larger than the server reads; the connection is closed.',
  },
  MALFORMED_REQUEST: {
    code: 'MALFORMED_REQUEST_ERR',
    httpStatus: 400,
    retryable: false,
    when: 'The request is not valid HTTP/1.1; the connection is closed.',
  },
  INTERNAL: {
    code: 'INTERNAL_SERVER_ERR',
    httpStatus: 500,
    retryable: true,
    when: 'An unexpected failure; nothing about it is shown to the caller, the log has it.',
  },
  REQUEST_IN_PROGRESS: {
    code: 'REQUEST_IN_PROGRESS_ERR',
    httpStatus: 503,
    retryable: true,
    when: 'A webhook with the same request_id is being taken right now; try again after Retry-After.',
  },
  SERVICE_UNAVAILABLE: {
    code: 'SERVICE_UNAVAILABLE_ERR',
    httpStatus: 503,
    retryable: true,
    when: 'The service is starting or stopping, or Kafka or a store it needs is away; try again after Retry-After.',
  },

  // Failures inside Hookstream (logs, CLI messages, dead-letter headers).
  CONFIG_INVALID: {
    code: 'HOOKSTREAM_CONFIG_INVALID',
    retryable: false,
    when: 'A setting from the environment is missing or malformed; the process exits, naming each variable.',
  },
  KAFKA_UNAVAILABLE: {
    code: 'HOOKSTREAM_KAFKA_UNAVAILABLE',
    retryable: true,
    when: 'Kafka could not be reached or refused a request that may succeed later.',
  },
  REGISTRY_UNAVAILABLE: {
    code: 'HOOKSTREAM_REGISTRY_UNAVAILABLE',
    retryable: true,
    when: 'The schema registry could not be reached or answered 5xx.',
  },
  SCHEMA_INCOMPATIBLE: {
    code: 'HOOKSTREAM_SCHEMA_INCOMPATIBLE',
    retryable: false,
    when: 'The registry refused a schema as incompatible with the subject’s earlier versions.',
  },
  AVRO_INVALID: {
    code: 'HOOKSTREAM_AVRO_INVALID',
    retryable: false,
    when: 'A value does not fit its Avro schema, or bytes are not a decodable Confluent-framed record.',
  },
  STORE_UNAVAILABLE: {
    code: 'HOOKSTREAM_STORE_UNAVAILABLE',
    retryable: true,
    when: 'A PostgreSQL store could not be reached or failed a query that may pass later.',
  },
  POLICY_EVENT_INVALID: {
    code: 'HOOKSTREAM_POLICY_EVENT_INVALID',
    retryable: false,
    when: 'A policy-status event is refused at publishing; every problem is named by field path.',
  },
  CALLBACK_BODY_INVALID: {
    code: 'HOOKSTREAM_CALLBACK_BODY_INVALID',
    retryable: false,
    when: 'A policy cannot be turned into a partner’s callback body; the event is dead-lettered.',
  },
  PARTNER_SPEC_INVALID: {
    code: 'HOOKSTREAM_PARTNER_SPEC_INVALID',
    retryable: false,
    when: 'A partner spec, or a change to a partner, is refused; every problem is named by field path.',
  },
  PARTNER_CHANGE_REFUSED: {
    code: 'HOOKSTREAM_PARTNER_CHANGE_REFUSED',
    retryable: false,
    when: 'A change to a partner is refused for what the partner is now (a limit of its keys, a stale revision); nothing is written.',
  },
  OPERATOR_INPUT_INVALID: {
    code: 'HOOKSTREAM_OPERATOR_INPUT_INVALID',
    retryable: false,
    when: 'An operator’s name or role is refused; every problem is named by field.',
  },
  ENTITY_NOT_FOUND: {
    code: 'HOOKSTREAM_NOT_FOUND',
    retryable: false,
    when: 'A command or a change names a partner, operator or API key that does not exist (CLI exit 3, API 404).',
  },
  REPLAY_REFUSED: {
    code: 'HOOKSTREAM_REPLAY_REFUSED',
    retryable: false,
    when: 'A dead-letter command or request names what is not there (an id no dead letter has, an offset beyond the topic): CLI exit 2, API 409.',
  },
  SIGNING_CONFIG_INVALID: {
    code: 'HOOKSTREAM_SIGNING_CONFIG_INVALID',
    retryable: false,
    when: 'A partner’s outbound auth cannot be used as stored (a secret does not decrypt or is malformed).',
  },
  SIGNATURE_INPUT_INVALID: {
    code: 'HOOKSTREAM_SIGNATURE_INPUT_INVALID',
    retryable: false,
    when: 'The body cannot be signed as the contract asks (MD5 over a body that is not a JSON object).',
  },
  TOKEN_FETCH_FAILED: {
    code: 'HOOKSTREAM_TOKEN_FETCH_FAILED',
    retryable: true,
    when: 'BEARER_FETCHED: the partner’s token endpoint failed, timed out or answered without a token.',
  },
  SSRF_REFUSED: {
    code: 'HOOKSTREAM_SSRF_REFUSED',
    retryable: false,
    when: 'A connection would reach an address range the SSRF guard refuses (private, loopback, metadata…).',
  },
  USAGE_INVALID: {
    code: 'HOOKSTREAM_USAGE_INVALID',
    retryable: false,
    when: 'A CLI command refuses the operator’s input (a flag, a file, a field): exit 2, nothing written.',
  },
  INTERRUPTED: {
    code: 'HOOKSTREAM_INTERRUPTED',
    retryable: false,
    when: 'Ctrl-C (SIGINT) or SIGTERM stopped a CLI command before it finished: exit 130.',
  },
  STACK_FAILED: {
    code: 'HOOKSTREAM_STACK_FAILED',
    retryable: false,
    when: 'The local stack (Kafka, registry, PostgreSQL) could not be fetched, started or stopped.',
  },
  PROCESS_GAVE_UP: {
    code: 'HOOKSTREAM_PROCESS_GAVE_UP',
    retryable: false,
    when: 'A process `hookstream start` supervises kept crashing, or could not be started again, and was given up on.',
  },
  SERVICE_NOT_READY: {
    code: 'HOOKSTREAM_SERVICE_NOT_READY',
    retryable: false,
    when: 'A service started as a child process ended, or did not answer /readyz with 200, before its deadline.',
  },
  SHUTDOWN_TIMEOUT: {
    code: 'HOOKSTREAM_SHUTDOWN_TIMEOUT',
    retryable: false,
    when: 'Shutdown did not finish in time; the process exits anyway.',
  },
} as const satisfies Record<string, CodeFacts>;

type Catalogue = typeof ERROR_CATALOGUE;

/** Each code by its name: `ErrorCodes.SERVICE_UNAVAILABLE` is 'SERVICE_UNAVAILABLE_ERR'. */
export const ErrorCodes = Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([name, facts]) => [name, facts.code])) as {
  readonly [K in keyof Catalogue]: Catalogue[K]['code'];
};

export type ErrorCode = Catalogue[keyof Catalogue]['code'];

/** The codes answered over HTTP: those with an HTTP status. */
export type RefusalCode = {
  [K in keyof Catalogue]: Catalogue[K] extends { httpStatus: number } ? Catalogue[K]['code'] : never;
}[keyof Catalogue];

const FACTS: ReadonlyMap<string, CodeFacts> = new Map(Object.values(ERROR_CATALOGUE).map((facts) => [facts.code, facts]));

/** The facts of a code, or undefined for a string that is not one of ours. */
export function factsOf(code: string): CodeFacts | undefined {
  return FACTS.get(code);
}
