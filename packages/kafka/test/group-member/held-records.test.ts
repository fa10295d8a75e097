import type { EachBatchPayload } from '../../src/types';
import type { KafkaMessage } from '../../src/types';
import type { Kafka } from '../../src/client';
import pino from 'pino';
import { ConcurrentRecords } from '../../src/group-member/concurrent-records';

/**
 * The due times of the records a GroupMember's concurrent mode (ConcurrentRecords) holds until due (what the callback-sender's
 * hookstream_callback_retry_overdue_seconds is computed from), without Kafka: batches are handed
 * to it as the client would.
 */
const NOW = 1_000_000;

function holdingConsumer(partitionConcurrency = 1024) {
  let release = () => undefined as void;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  const consumer = new ConcurrentRecords({
    kafka: {} as Kafka,
    logger: pino({ level: 'silent' }),
    groupId: 'unit',
    session: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 },
    topics: ['retry-1', 'retry-2'],
    mode: {
      kind: 'concurrent',
      roundIntervalMs: 100,
      partitionConcurrency,
      // Records started never finish during the test: a full partition keeps its due records held.
      handle: () => blocked.then(() => []),
      delayed: { topics: ['retry-1', 'retry-2'], dueAt: (_topic, message) => Number(message.headers!['due-at']!.toString()) },
      now: () => NOW,
    },
  });
  (consumer as unknown as { consumer: unknown }).consumer = {
    pause: () => undefined,
    resume: () => undefined,
    disconnect: () => Promise.resolve(),
  };
  (consumer as unknown as { transactions: unknown }).transactions = { commit: () => Promise.resolve(), close: () => Promise.resolve() };
  const take = (topic: string, partition: number, dueTimes: number[]) =>
    (consumer as unknown as { processBatch(p: EachBatchPayload): Promise<void> }).processBatch(batchOf(topic, partition, dueTimes));
  /** Lets the started records finish and stops the consumer (its timers with it). */
  const stop = async () => {
    release();
    await consumer.stop();
  };
  return { consumer, take, stop };
}

function batchOf(topic: string, partition: number, dueTimes: number[]): EachBatchPayload {
  const messages: KafkaMessage[] = dueTimes.map((dueAt, i) => ({
    key: Buffer.from(`policy-${i}`),
    value: Buffer.from('record'),
    offset: String(i),
    timestamp: '0',
    attributes: 0,
    headers: { 'due-at': String(dueAt) },
  }));
  return {
    batch: { topic, partition, messages },
    isRunning: () => true,
    isStale: () => false,
    resolveOffset: () => undefined,
    heartbeat: () => Promise.resolve(),
  } as unknown as EachBatchPayload;
}

test('when no record is held, then no topic has a due time', () => {
  expect(holdingConsumer().consumer.heldDueTimes()).toEqual(new Map());
});

test('when records are held in several partitions of a topic, then its due time is the earliest of their first records', async () => {
  const { consumer, take, stop } = holdingConsumer();
  await take('retry-1', 0, [NOW + 5_000, NOW + 6_000]);
  await take('retry-1', 1, [NOW + 2_000]);
  await take('retry-2', 0, [NOW + 30_000]);
  expect(consumer.heldDueTimes()).toEqual(
    new Map([
      ['retry-1', NOW + 2_000],
      ['retry-2', NOW + 30_000],
    ]),
  );
  await stop();
});

test('when a due record waits for a slot in its full partition, then it is still held and its past due time is reported', async () => {
  const { consumer, take, stop } = holdingConsumer(1);
  // The first is due and starts (taking the one slot); the second is due too and must wait.
  await take('retry-1', 0, [NOW - 4_000, NOW - 3_000]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(consumer.heldDueTimes()).toEqual(new Map([['retry-1', NOW - 3_000]]));
  await stop();
});
