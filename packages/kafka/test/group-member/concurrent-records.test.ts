import type { EachBatchPayload, TopicOffsets } from '../../src/types';
import type { OutputRecord } from '../../src/group-member/member-transactions';
import type { Kafka } from '../../src/client';
import pino from 'pino';
import { fakeBatch } from './fake-batch';
import { ConcurrentRecords } from '../../src/group-member/concurrent-records';
import type { ConcurrentMode, ConsumedRecord } from '../../src/group-member/options';
import { MAX_HELD_PER_PARTITION } from '../../src/group-member/held-records';

/** The header the delay topics of these tests carry their due time in (epoch ms). */
const DUE_AT = 'due-at';

/**
 * The consumer's own scheduling, without Kafka: a batch is handed to it as the client would, with a
 * `handle` that answers at once (so all of a record's work runs in microtasks).
 */
function consumerHandling(
  handle: (record: ConsumedRecord) => Promise<void>,
  partitionConcurrency = 1024,
  transactionFails: () => boolean = () => false,
  beforeBatch?: ConcurrentMode['beforeBatch'],
) {
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
      partitionConcurrency,
      // Each record becomes one output record naming it.
      handle: (record) => handle(record).then((): OutputRecord[] => [{ topic: 'out', message: { key: keyOf(record), value: null } }]),
      ...(beforeBatch ? { beforeBatch } : {}),
      delayed: {
        topics: Array.from({ length: 8 }, (_, i) => `retry-${i + 1}`),
        dueAt: (_topic, message) => Number(message.headers?.[DUE_AT]?.toString() ?? 0),
      },
    },
  });
  // Stands for the client consumer that start() would create: only its pauses and resumes are seen.
  const calls: string[] = [];
  const commits: Array<{ offset: number; at: number }> = [];
  /** Each transaction committed: its output records' keys and its offsets. */
  const transactions: Array<{ keys: string[]; offsets: string[] }> = [];
  const partitions = (list: Array<{ topic: string; partitions: number[] }>) =>
    list.map((t) => `${t.topic}/${t.partitions.join(',')}`).join(' ');
  (consumer as unknown as { consumer: unknown }).consumer = {
    pause: (list: Array<{ topic: string; partitions: number[] }>) => calls.push(`pause ${partitions(list)}`),
    resume: (list: Array<{ topic: string; partitions: number[] }>) => calls.push(`resume ${partitions(list)}`),
    seek: (to: { topic: string; partition: number; offset: string }) => calls.push(`seek ${to.topic}/${to.partition}@${to.offset}`),
  };
  // Stands for the member's transactional producer.
  (consumer as unknown as { transactions: unknown }).transactions = {
    commit: (records: OutputRecord[], offsets: TopicOffsets[]) => {
      if (transactionFails()) return Promise.reject(new Error('fenced'));
      const list = offsets.flatMap((t) => t.partitions.map((p) => `${t.topic}/${p.partition}@${p.offset}`));
      transactions.push({ keys: records.map((r) => String(r.message.key)), offsets: list });
      for (const t of offsets) for (const p of t.partitions) commits.push({ offset: Number(p.offset), at: Date.now() });
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  const handleBatch = (payload: EachBatchPayload) =>
    (consumer as unknown as { processBatch(p: EachBatchPayload): Promise<void> }).processBatch(payload);
  return Object.assign(handleBatch, { calls, commits, transactions });
}

/** The key of a record, its policy in the callback-sender: records of one key go one after another. */
const keyOf = (record: ConsumedRecord) => String(record.message.key);

function batchOf(count: number, topic = 'requests', headers: (i: number) => Record<string, string> = () => ({})): EachBatchPayload {
  return fakeBatch(count, { topic, headers });
}

test('a large batch does not hold the event loop: I/O waiting behind it runs before all its records have been handled', async () => {
  const handled: string[] = [];
  const handleBatch = consumerHandling((record) => {
    handled.push(keyOf(record));
    return Promise.resolve();
  });
  let handledWhenIoRan = -1;
  // Stands for a partner's response arriving while the batch is handled.
  setImmediate(() => (handledWhenIoRan = handled.length));

  await handleBatch(batchOf(200));
  await new Promise((resolve) => setTimeout(resolve, 20));

  expect(handled).toHaveLength(200);
  expect(handledWhenIoRan).toBeGreaterThan(0);
  expect(handledWhenIoRan).toBeLessThan(200);
});

test("a delay topic's batch is read once: records not yet due are held and each started once due, the partition read on meanwhile", async () => {
  const handledAt = new Map<string, number>();
  const handleBatch = consumerHandling((record) => {
    handledAt.set(keyOf(record), Date.now());
    return Promise.resolve();
  });
  const start = Date.now();
  const dueAt = [start - 1, start + 60, start + 120];
  const resolved: string[] = [];
  const payload = batchOf(3, 'retry-1', (i) => ({ [DUE_AT]: String(dueAt[i]) }));
  (payload as unknown as { resolveOffset: (offset: string) => void }).resolveOffset = (offset) => resolved.push(offset);

  await handleBatch(payload);
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect([...handledAt.keys()]).toEqual(['policy-0']);
  // A few records held: the partition is not paused (see the next tests for a full one).
  expect(handleBatch.calls).toEqual([]);
  // The fetch position moves past the held records: they are not fetched again.
  expect(resolved).toEqual(['2']);

  await new Promise((resolve) => setTimeout(resolve, 400));
  expect([...handledAt.keys()]).toEqual(['policy-0', 'policy-1', 'policy-2']);
  dueAt.forEach((due, i) => expect(handledAt.get(`policy-${i}`)).toBeGreaterThanOrEqual(due));
  expect(handleBatch.calls).toEqual([]);
  // A commit passes a record only once it has been handled (committed offset n: records below n are done).
  const { commits } = handleBatch;
  expect(commits.at(-1)?.offset).toBe(3);
  for (const commit of commits) expect(commit.at).toBeGreaterThanOrEqual(handledAt.get(`policy-${commit.offset - 1}`)!);
});

test('a delay-topic batch that comes again (a fetch that was in flight when the partition paused) does not start its records twice', async () => {
  const handled: string[] = [];
  const handleBatch = consumerHandling((record) => {
    handled.push(keyOf(record));
    return Promise.resolve();
  });
  const dueAt = Date.now() + 50;
  const batch = () => batchOf(3, 'retry-2', () => ({ [DUE_AT]: String(dueAt) }));
  await handleBatch(batch());
  await handleBatch(batch());
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(handled).toEqual(['policy-0', 'policy-1', 'policy-2']);
});

test('a delay-topic partition is paused as soon as it holds its limit, even while the due ones wait for a slot: fetches cannot pile it into memory', async () => {
  let handled = 0;
  const handleBatch = consumerHandling(() => {
    handled += 1;
    return new Promise<void>(() => undefined); // a record that never finishes: its slots stay taken
  }, 2);
  await handleBatch(batchOf(MAX_HELD_PER_PARTITION, 'retry-3', () => ({ [DUE_AT]: String(Date.now() - 1) })));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(handled).toBe(2);
  expect(handleBatch.calls).toEqual(['pause retry-3/0']);
});

test('a full delay-topic partition is resumed once less than half its limit is held, and not paused again before it is full', async () => {
  const handleBatch = consumerHandling(() => Promise.resolve());
  const now = Date.now();
  // The first half and one more are due at once, the rest a little later.
  const half = MAX_HELD_PER_PARTITION / 2;
  await handleBatch(batchOf(MAX_HELD_PER_PARTITION, 'retry-4', (i) => ({ [DUE_AT]: String(i <= half ? now - 1 : now + 200) })));
  // The due half is handled in microtasks: at once, unless the machine is loaded (a fixed 50 ms failed then).
  for (const until = Date.now() + 2_000; handleBatch.calls.length < 2 && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
  expect(handleBatch.calls).toEqual(['pause retry-4/0', 'resume retry-4/0']);
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(handleBatch.calls).toEqual(['pause retry-4/0', 'resume retry-4/0']);
});

test('when a record cannot be done, its partition is read again from its last commit, not from the record that failed', async () => {
  const failAfter = (ms: number) => new Promise<void>((_resolve, reject) => setTimeout(() => reject(new Error('broker away')), ms));
  // The record at offset 2 fails first; those at offsets 0 and 1 fail after it.
  const handleBatch = consumerHandling((record) => failAfter(keyOf(record) === 'policy-2' ? 0 : 30));
  await handleBatch(batchOf(3));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(handleBatch.calls.filter((call) => call.startsWith('seek'))).toEqual(['seek requests/0@0']);
});

test('when a record fails, the records of its key queued behind it are not started: its partition is read again from its last commit, with them', async () => {
  const started: string[] = [];
  const handleBatch = consumerHandling(async (record) => {
    started.push(record.message.offset);
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (record.message.offset === '0') throw new Error('partner-config unavailable');
  });
  // Three records of one policy: each waits for the one before it.
  const payload = batchOf(3);
  for (const message of payload.batch.messages) message.key = Buffer.from('policy-A');
  await handleBatch(payload);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(handleBatch.calls.filter((call) => call.startsWith('seek'))).toEqual(['seek requests/0@0']);
  expect(started).toEqual(['0']);
});

test('beforeBatch runs on a batch before any of its records starts; when it rejects, none starts and the partition is read again from its last commit; delay topics skip it', async () => {
  const seen: string[] = [];
  let refuse = false;
  const handleBatch = consumerHandling(
    (record) => (seen.push(`handle ${keyOf(record)}`), Promise.resolve()),
    1024,
    () => false,
    ({ topic, messages }) => {
      seen.push(`before ${topic} ${messages.length}`);
      return refuse ? Promise.reject(new Error('store away')) : Promise.resolve();
    },
  );
  await handleBatch(batchOf(2));
  expect(seen).toEqual(['before requests 2', 'handle policy-0', 'handle policy-1']);
  refuse = true;
  seen.length = 0;
  await handleBatch(fakeBatch(2, { from: 2 }));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(seen).toEqual(['before requests 2']);
  expect(handleBatch.calls.filter((call) => call.startsWith('seek'))).toEqual(['seek requests/0@0']);
  seen.length = 0;
  await handleBatch(batchOf(1, 'retry-1', () => ({ [DUE_AT]: '0' })));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(seen).toEqual(['handle policy-0']);
});

test("what records became is written in rounds, with each partition's lowest offset still in flight: a slow record holds back the offset, not what the others became", async () => {
  let finishSlow = () => undefined as void;
  const slow = new Promise<void>((resolve) => (finishSlow = resolve));
  const handleBatch = consumerHandling((record) => (keyOf(record) === 'policy-1' ? slow : Promise.resolve()));
  await handleBatch(batchOf(4));
  await new Promise((resolve) => setTimeout(resolve, 250));
  expect(handleBatch.transactions).toEqual([{ keys: ['policy-0', 'policy-2', 'policy-3'], offsets: ['requests/0@1'] }]);
  finishSlow();
  await new Promise((resolve) => setTimeout(resolve, 250));
  expect(handleBatch.transactions.at(-1)).toEqual({ keys: ['policy-1'], offsets: ['requests/0@4'] });
  expect(handleBatch.calls).toEqual([]);
});

test('when a transaction fails, its partitions are read again from their last commit, after a pause, and what they became is not written twice by this reading', async () => {
  let fail = false;
  const handleBatch = consumerHandling(
    () => Promise.resolve(),
    1024,
    () => fail,
  );
  await handleBatch(batchOf(2));
  await new Promise((resolve) => setTimeout(resolve, 250));
  expect(handleBatch.transactions).toEqual([{ keys: ['policy-0', 'policy-1'], offsets: ['requests/0@2'] }]);
  fail = true;
  await handleBatch(fakeBatch(2, { from: 2 }));
  await new Promise((resolve) => setTimeout(resolve, 250));
  expect(handleBatch.calls).toEqual(['seek requests/0@2', 'pause requests/0']);
  expect(handleBatch.transactions).toHaveLength(1);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  expect(handleBatch.calls).toEqual(['seek requests/0@2', 'pause requests/0', 'resume requests/0']);
});
