import type { EachBatchPayload } from '../../src/types';
import type { Kafka } from '../../src/client';
import pino from 'pino';
import { fakeBatch } from './fake-batch';
import { ConcurrentRecords } from '../../src/group-member/concurrent-records';
import type { ConsumedRecord } from '../../src/group-member/options';

/** A record whose handling the test finishes (or fails) when it says. */
interface Pending {
  key: string;
  done: () => void;
  fail: (error: Error) => void;
}

/**
 * A consumer on topic "requests" whose client consumer is a stand-in recording what it is asked
 * (pause, seek, commit, disconnect, in order), and whose `handle` waits for the test.
 */
function stoppableConsumer() {
  const started: Pending[] = [];
  // The concurrent mode of a GroupMember (its group's internals), driven here without Kafka.
  const consumer = new ConcurrentRecords({
    kafka: {} as Kafka,
    logger: pino({ level: 'silent' }),
    groupId: 'unit',
    session: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 },
    topics: ['requests'],
    mode: {
      kind: 'concurrent',
      roundIntervalMs: 100,
      partitionConcurrency: 1024,
      handle: (record: ConsumedRecord) =>
        new Promise<void>((resolve, reject) => started.push({ key: String(record.message.key), done: resolve, fail: reject })).then(
          () => [],
        ),
    },
  });
  const calls: string[] = [];
  (consumer as unknown as { consumer: unknown }).consumer = {
    pause: (list: Array<{ topic: string; partitions?: number[] }>) =>
      calls.push(`pause ${list.map((t) => `${t.topic}/${t.partitions?.join(',') ?? '*'}`).join(' ')}`),
    resume: () => calls.push('resume'),
    seek: (to: { offset: string }) => calls.push(`seek @${to.offset}`),
  };
  // Stands for the member's transactional producer: each transaction's offsets.
  (consumer as unknown as { transactions: unknown }).transactions = {
    commit: (_records: unknown[], offsets: Array<{ partitions: Array<{ offset: string }> }>) => {
      calls.push(...offsets.flatMap((t) => t.partitions.map((c) => `commit ${c.offset}`)));
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  // The group member start() would make: stopping it leaves the group.
  (consumer as unknown as { member: unknown }).member = {
    stop: () => {
      calls.push('disconnect');
      return Promise.resolve();
    },
  };
  const handleBatch = (payload: EachBatchPayload) =>
    (consumer as unknown as { processBatch(p: EachBatchPayload): Promise<void> }).processBatch(payload);
  return { consumer, started, calls, handleBatch };
}

function batchOf(from: number, count: number): EachBatchPayload {
  return fakeBatch(count, { from, value: () => 'record' });
}

test('when stopped, then it starts no new record, waits for those in flight, commits past them, and only then leaves the group', async () => {
  const { consumer, started, calls, handleBatch } = stoppableConsumer();
  await handleBatch(batchOf(0, 3));
  expect(started.map((p) => p.key)).toEqual(['policy-0', 'policy-1', 'policy-2']);

  let stopped = false;
  const stopping = consumer.stop(new AbortController().signal).then(() => (stopped = true));
  // Every partition of its topics is paused (the client would fetch them again and again), and a batch already fetched starts nothing.
  expect(calls).toEqual(['pause requests/*']);
  await handleBatch(batchOf(3, 2));
  expect(started).toHaveLength(3);

  started[0]!.done();
  started[2]!.done();
  await new Promise((r) => setTimeout(r, 60));
  expect(stopped).toBe(false);
  started[1]!.done();
  await stopping;
  expect(calls.slice(-2)).toEqual(['commit 3', 'disconnect']);
});

test('when the hand-back signal comes first, then a record still in flight stays uncommitted, and its later failure reads nothing again', async () => {
  const { consumer, started, calls, handleBatch } = stoppableConsumer();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    await handleBatch(batchOf(0, 3));
    started[0]!.done();
    started[2]!.done();
    const handBack = new AbortController();
    const stopping = consumer.stop(handBack.signal);
    await new Promise((r) => setTimeout(r, 40));
    handBack.abort();
    await stopping;
    // Committed up to the record still in flight (offset 1), not past it: the next owner reads it again.
    expect(calls.filter((c) => c.startsWith('commit'))).toEqual(['commit 1']);
    expect(calls.at(-1)).toBe('disconnect');

    // Its write fails once the producer has closed: the consumer is gone, so it is not asked to seek or commit.
    started[1]!.fail(new Error('producer disconnected'));
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.filter((c) => c.startsWith('seek') || c === 'commit 3')).toEqual([]);
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
