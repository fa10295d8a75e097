import { KafkaJS } from '@confluentinc/kafka-javascript';
import { isRetryableKafkaError } from '../src/retryable';

/** The codes retryable.ts calls retryable, by librdkafka's names. */
const TABLE = [
  'ERR_UNKNOWN_TOPIC_OR_PART',
  'ERR_LEADER_NOT_AVAILABLE',
  'ERR_NOT_LEADER_FOR_PARTITION',
  'ERR_REQUEST_TIMED_OUT',
  'ERR_NETWORK_EXCEPTION',
  'ERR_GROUP_LOAD_IN_PROGRESS',
  'ERR_GROUP_COORDINATOR_NOT_AVAILABLE',
  'ERR_NOT_COORDINATOR_FOR_GROUP',
  'ERR_NOT_ENOUGH_REPLICAS',
  'ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'ERR_CONCURRENT_TRANSACTIONS',
  'ERR__TIMED_OUT',
  'ERR__ALL_BROKERS_DOWN',
  'ERR__MSG_TIMED_OUT',
  'ERR__TRANSPORT',
] as const;

/** The client's own conversion of a librdkafka error into its KafkaJS-style error (what its producers and admin throw). */
function clientError(code: number): { retriable?: unknown } | undefined {
  const LibrdKafkaError = require('@confluentinc/kafka-javascript/lib/error') as new (e: object) => object;
  const common = require('@confluentinc/kafka-javascript/lib/kafkajs/_common') as {
    createKafkaJsErrorFromLibRdKafkaError: (e: object) => { retriable?: unknown };
  };
  try {
    return common.createKafkaJsErrorFromLibRdKafkaError(new LibrdKafkaError({ code, message: 'x' }));
  } catch {
    return undefined; // 1.10.1 throws for GROUP_COORDINATOR_NOT_AVAILABLE (a class it does not export)
  }
}

test('when the client converts one of the table’s codes, then it does not call it retriable: the table is what says so', () => {
  const codes = KafkaJS.ErrorCodes as Record<string, number>;
  const saidRetriable = TABLE.filter((name) => clientError(codes[name]!)?.retriable === true);
  // Fails the day the client says it: then retryable.ts can rely on the client for these.
  expect(saidRetriable).toEqual([]);
  for (const name of TABLE) expect(isRetryableKafkaError({ code: codes[name] })).toBe(true);
});

test('when an error says retriable, or wraps one the table knows, then it is retryable; otherwise not', () => {
  expect(isRetryableKafkaError({ retriable: true })).toBe(true);
  expect(isRetryableKafkaError({ name: 'KafkaJSError', cause: { code: -195 } })).toBe(true);
  expect(isRetryableKafkaError({ name: 'KafkaJSProtocolError', type: 'INVALID_RECORD', retriable: false, code: 87 })).toBe(false);
});

describe('isRetryableKafkaError', () => {
  test('client errors that mean "try again" are recognised by type, also when wrapped', () => {
    expect(isRetryableKafkaError({ name: 'KafkaJSProtocolError', type: 'CONCURRENT_TRANSACTIONS', retriable: false })).toBe(true);
    expect(isRetryableKafkaError({ name: 'KafkaJSProtocolError', type: 'COORDINATOR_LOAD_IN_PROGRESS' })).toBe(true);
    expect(isRetryableKafkaError({ name: 'KafkaJSNonRetriableError', originalError: { name: 'KafkaJSConnectionError' } })).toBe(true);
    expect(isRetryableKafkaError({ name: 'KafkaJSProtocolError', type: 'INVALID_RECORD', retriable: false })).toBe(false);
    expect(isRetryableKafkaError(undefined)).toBe(false);
  });
});
