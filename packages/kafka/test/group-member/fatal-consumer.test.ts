/**
 * A consumer librdkafka says is unusable for good (a fatal error: a static member fenced after its
 * coordinator restarted, librdkafka#3437) is replaced, in the process: the adapter stops taking
 * records and says so once (GroupConsumer), and the GroupMember leaves with it and joins its group
 * again with a new consumer, not ready meanwhile. Before, the dead consumer stayed for good and the
 * service delivered nothing while it answered ready (seen after a broker restart under `npm start`).
 */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import type { Kafka } from '../../src/client';
import { GroupConsumer } from '../../src/group-consumer';
import { GroupMember } from '../../src/group-member/group-member';
import type { GroupClientHooks, NativeGroupClient } from '../../src/native-clients';
import type { ConsumerOptions } from '../../src/client-options';

const FATAL = -150;
const silent = pino({ level: 'silent' });
const until = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`never: ${what}`);
};

/** A native client whose takes return nothing (or the error given), as librdkafka's would. */
function nativeClient(consumeError: () => unknown) {
  const events = new EventEmitter();
  const takes = { count: 0 };
  const native = {
    on: (event: string, listener: (e: unknown) => void) => events.on(event, listener),
    setDefaultConsumeTimeout: () => undefined,
    setDefaultIsTimeoutOnlyForFirstMessage: () => undefined,
    consume: (_max: number, callback: (error: unknown, messages: unknown[]) => void) => {
      takes.count += 1;
      setTimeout(() => callback(consumeError(), []), 5);
    },
    isConnected: () => false,
  } as unknown as NativeGroupClient;
  return { native, events, takes };
}

test('when librdkafka reports a fatal error event, then the consumer takes nothing more and tells its owner once', async () => {
  const { native, events, takes } = nativeClient(() => null);
  const fatal: unknown[] = [];
  const consumer = new GroupConsumer((_hooks: GroupClientHooks) => native, {
    logger: silent,
    maxPollIntervalMs: 60_000,
    maxBatchSize: 10,
    autoCommit: false,
    onFatal: (error) => fatal.push(error),
  });
  await consumer.run({ eachBatch: async () => undefined });
  await until(() => takes.count > 3, 'takes');
  events.emit('event.error', { code: FATAL, message: 'Broker: Static consumer fenced by other consumer with same group.instance.id' });
  events.emit('event.error', { code: FATAL, message: 'again' });
  const taken = takes.count;
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(fatal).toHaveLength(1);
  expect(takes.count - taken).toBeLessThanOrEqual(1); // at most the take under way
  await consumer.disconnect();
});

test('when a take fails with a fatal error, then the owner is told once and no take follows', async () => {
  // As librdkafka's binding gives it: an Error carrying the code and the flag.
  const { native, takes } = nativeClient(() => Object.assign(new Error('fenced'), { code: FATAL, isFatal: true }));
  const fatal: unknown[] = [];
  const consumer = new GroupConsumer(() => native, {
    ...{ logger: silent, maxPollIntervalMs: 60_000, maxBatchSize: 10, autoCommit: false },
    onFatal: (error) => fatal.push(error),
  });
  await consumer.run({ eachBatch: async () => undefined });
  await until(() => fatal.length === 1, 'the fatal take reported');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(takes.count).toBe(1);
  expect(fatal).toHaveLength(1);
  await consumer.disconnect();
});

test('when a member’s consumer fails for good, then the member leaves with it and joins again with a new one', async () => {
  const made: Array<{ options: ConsumerOptions; disconnected: boolean; running: boolean }> = [];
  const kafka = {
    consumer: (options: ConsumerOptions) => {
      const consumer = { options, disconnected: false, running: false };
      made.push(consumer);
      return {
        connect: async () => undefined,
        subscribe: async () => undefined,
        run: async () => {
          consumer.running = true;
          await options.onRebalance?.('assigned', [{ topic: 'requests', partition: 0 }]);
        },
        disconnect: async () => {
          consumer.disconnected = true;
        },
        assignment: () => [],
      };
    },
  } as unknown as Kafka;
  const member = new GroupMember({
    kafka,
    logger: silent,
    groupId: 'unit',
    session: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 },
    topics: ['requests'],
    mode: { kind: 'batches', handle: async () => undefined },
  });
  await member.start();
  expect(member.joined).toBe(true);

  made[0]!.options.onFatal!(new Error('fenced'));
  made[0]!.options.onFatal!(new Error('fenced again')); // told twice: replaced once
  await until(() => made.length === 2 && made[1]!.running, 'a second consumer running');
  expect(made[0]!.disconnected).toBe(true);
  expect(made).toHaveLength(2);
  expect(made[1]!.options.groupId).toBe('unit');
  await until(() => member.joined, 'joined again');
  await member.stop();
  expect(made[1]!.disconnected).toBe(true);
});
