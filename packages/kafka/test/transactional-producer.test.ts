import { GroupConsumer } from '../src/group-consumer';
import type { NativeGroupClient, NativeTransactionalClient } from '../src/native-clients';
import { TransactionalProducer } from '../src/transactional-producer';
import pino from 'pino';

/**
 * librdkafka's sendOffsetsToTransaction can hang past its timeout when the group's coordinator
 * died (librdkafka#5456, #5511), and its destroy waits for it. A native producer whose call calls
 * back only when the test says so stands for it.
 */
function hangingNative() {
  const calls: string[] = [];
  let pending: ((error: unknown) => void) | undefined;
  const ok =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push(name);
      (args.at(-1) as (error: unknown) => void)(null);
    };
  const native: NativeTransactionalClient = {
    connect: ok('connect'),
    disconnect: ok('disconnect'),
    isConnected: () => true,
    on: () => undefined,
    setPollInBackground: () => undefined,
    produce: (...args: unknown[]) => {
      calls.push('produce');
      // Written at once: the delivery report comes back with the record's opaque.
      (args[5] as { resolve: () => void }).resolve();
    },
    initTransactions: ok('initTransactions'),
    beginTransaction: ok('beginTransaction'),
    sendOffsetsToTransaction: (_offsets, _consumer, _timeout, callback) => {
      calls.push('sendOffsetsToTransaction');
      pending = (error) => {
        calls.push('sendOffsetsToTransaction ended');
        callback(error);
      };
    },
    commitTransaction: ok('commitTransaction'),
    abortTransaction: ok('abortTransaction'),
  };
  return { native, calls, endHungCall: () => pending?.({ code: -185, message: 'Local: Timed out' }) };
}

const member = new GroupConsumer(
  () =>
    ({
      on: () => undefined,
      setDefaultConsumeTimeout: () => undefined,
      setDefaultIsTimeoutOnlyForFirstMessage: () => undefined,
    }) as unknown as NativeGroupClient,
  {
    logger: pino({ level: 'silent' }),
    maxBatchSize: 10,
    maxPollIntervalMs: 10_000,
    autoCommit: false,
  },
);
const offsets = [{ topic: 't', partitions: [{ partition: 0, offset: '1' }] }];

test('when sendOffsetsToTransaction does not return, then it fails past its timeout, the producer refuses further calls, and it is closed once the call returns', async () => {
  const { native, calls, endHungCall } = hangingNative();
  const producer = new TransactionalProducer(native, 100);
  await producer.connect();
  const transaction = await producer.transaction();
  await transaction.sendBatch({ topicMessages: [{ topic: 't', messages: [{ key: 'k', value: 'v' }] }] });

  const started = Date.now();
  await expect(transaction.sendOffsets({ consumer: member, topics: offsets })).rejects.toThrow(
    /did not return within 2100 ms; the producer is abandoned/,
  );
  expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  // librdkafka takes no other transactional call while one is under way: none is made.
  await expect(transaction.abort()).rejects.toThrow(/abandoned/);
  // Returns at once: closing waits for the hung call.
  await producer.disconnect();
  expect(calls).toEqual(['connect', 'initTransactions', 'beginTransaction', 'produce', 'sendOffsetsToTransaction']);
  endHungCall();
  await new Promise((resolve) => setImmediate(resolve));
  expect(calls.slice(-2)).toEqual(['sendOffsetsToTransaction ended', 'disconnect']);
});

test('when sendOffsetsToTransaction answers in time, then the transaction commits as usual', async () => {
  const { native, calls } = hangingNative();
  native.sendOffsetsToTransaction = (_offsets, _consumer, _timeout, callback: (error: unknown) => void) => {
    calls.push('sendOffsetsToTransaction');
    callback(null);
  };
  const producer = new TransactionalProducer(native, 100);
  await producer.connect();
  const transaction = await producer.transaction();
  await transaction.sendOffsets({ consumer: member, topics: offsets });
  await transaction.commit();
  await producer.disconnect();
  expect(calls).toEqual(['connect', 'initTransactions', 'beginTransaction', 'sendOffsetsToTransaction', 'commitTransaction', 'disconnect']);
});
