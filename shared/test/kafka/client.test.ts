import { logLevel } from 'kafkajs';
import { kafkajsLogLevel } from '../../src/kafka/kafkajs-legacy';

const CONCURRENT = 'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing';

test('given kafkajs reporting a retriable CONCURRENT_TRANSACTIONS answer at error level, then it is logged at debug', () => {
  // The Producer line carries the text in its message, the Connection line in its error field.
  expect(kafkajsLogLevel(logLevel.ERROR, `Failed to send messages: ${CONCURRENT}`, undefined)).toBe('debug');
  expect(kafkajsLogLevel(logLevel.ERROR, 'Response AddPartitionsToTxn(key: 24, version: 1)', CONCURRENT)).toBe('debug');
});

test('given any other kafkajs line, then its own level is kept', () => {
  expect(
    kafkajsLogLevel(logLevel.ERROR, 'Failed to send messages: This server is not the leader for that topic-partition', undefined),
  ).toBe('error');
  expect(kafkajsLogLevel(logLevel.ERROR, 'Response Produce(key: 0, version: 7)', 'The broker is not available')).toBe('error');
  expect(kafkajsLogLevel(logLevel.WARN, `Failed to send messages: ${CONCURRENT}`, undefined)).toBe('warn');
  expect(kafkajsLogLevel(logLevel.INFO, 'Consumer has joined the group', undefined)).toBe('info');
});
