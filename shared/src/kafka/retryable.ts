/**
 * Kafka error types that mean "try again": the broker is moving leadership, loading a
 * coordinator right after start, or finishing a previous transaction (kafkajs issues
 * #430 and #1315). kafkajs marks most as `retriable`; these are matched by type as well
 * because wrapped errors (KafkaJSNumberOfRetriesExceeded) lose the flag.
 */
const RETRYABLE_TYPES = new Set([
  'COORDINATOR_LOAD_IN_PROGRESS',
  'COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR',
  'CONCURRENT_TRANSACTIONS',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
  'REQUEST_TIMED_OUT',
  'NETWORK_EXCEPTION',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'UNKNOWN_TOPIC_OR_PARTITION',
]);

const RETRYABLE_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTimeout',
]);

/** Whether a kafkajs error (or one it wraps) may go away if the operation is tried again. */
export function isRetryableKafkaError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const e = error as { retriable?: unknown; type?: unknown; name?: unknown; cause?: unknown; originalError?: unknown };
  if (e.retriable === true) return true;
  if (typeof e.type === 'string' && RETRYABLE_TYPES.has(e.type)) return true;
  if (typeof e.name === 'string' && RETRYABLE_NAMES.has(e.name)) return true;
  return isRetryableKafkaError(e.originalError, depth + 1) || isRetryableKafkaError(e.cause, depth + 1);
}

/**
 * Whether `error` comes from the Kafka client at all (kafkajs names its errors KafkaJS…): for a
 * caller whose answer to any failed write is "not stored, retry later" (the ingress), whatever
 * the broker said.
 */
export function isKafkaClientError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.startsWith('KafkaJS');
}
