/**
 * Kafka error types that mean "try again": the broker is moving leadership, loading a
 * coordinator right after start, or finishing a previous transaction.
 *
 * Hand-written because the client does not say it. @confluentinc/kafka-javascript 1.10.1 marks
 * retriability only on the transactional API's errors (`isRetriable`, librdkafka's
 * rd_kafka_error_is_retriable), and its KafkaJS-style errors copy it from a property that does not
 * exist (`retriable`, in lib/kafkajs/_common.js), so every one of them says `retriable: false`: of
 * the fifteen codes below, the client calls none retriable (test/retryable.test.ts checks it, and
 * fails the day the client starts saying so: then this table can go). Platformatic's client
 * (the admin's second) does say it (`canRetry`) and agrees on all eleven of Kafka's codes here, but
 * answers only the admin's four requests. A `retriable: true` is still honoured, for the day it comes.
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

/**
 * The same answers as librdkafka's error codes (its errors carry `code`; wrapped ones may keep only
 * their type or name): the broker's codes above, and librdkafka's own for a request or delivery
 * that timed out, a connection lost, no broker up.
 */
const RETRYABLE_CODES = new Set([
  3, // UNKNOWN_TOPIC_OR_PART
  5, // LEADER_NOT_AVAILABLE
  6, // NOT_LEADER_FOR_PARTITION
  7, // REQUEST_TIMED_OUT
  13, // NETWORK_EXCEPTION
  14, // COORDINATOR_LOAD_IN_PROGRESS
  15, // COORDINATOR_NOT_AVAILABLE
  16, // NOT_COORDINATOR
  19, // NOT_ENOUGH_REPLICAS
  20, // NOT_ENOUGH_REPLICAS_AFTER_APPEND
  51, // CONCURRENT_TRANSACTIONS
  -185, // _TIMED_OUT
  -187, // _ALL_BROKERS_DOWN
  -192, // _MSG_TIMED_OUT
  -195, // _TRANSPORT
]);

/** Whether a Kafka client's error (or one it wraps) may go away if the operation is tried again. */
export function isRetryableKafkaError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const e = error as { retriable?: unknown; type?: unknown; name?: unknown; code?: unknown; cause?: unknown; originalError?: unknown };
  if (e.retriable === true) return true;
  if (typeof e.code === 'number' && RETRYABLE_CODES.has(e.code)) return true;
  if (typeof e.type === 'string' && RETRYABLE_TYPES.has(e.type)) return true;
  if (typeof e.name === 'string' && RETRYABLE_NAMES.has(e.name)) return true;
  return isRetryableKafkaError(e.originalError, depth + 1) || isRetryableKafkaError(e.cause, depth + 1);
}

/**
 * Whether `error` comes from the Kafka client at all (both clients name their errors KafkaJS…): for a
 * caller whose answer to any failed write is "not stored, retry later" (the ingress), whatever
 * the broker said.
 */
export function isKafkaClientError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.startsWith('KafkaJS');
}
