import { Registry, type AvroCodec, type BatchingProducer, type EachBatchPayload, type Kafka, type KafkaMessage } from '@hookstream/shared';
import pino from 'pino';
import type { CallbackRequest } from '../../src/domain/deliver-callback';
import type { Disposition } from '../../src/domain/route-callback';
import { CallbackConsumer } from '../../src/kafka/callback-consumer';
import { createCallbackSenderMetrics } from '../../src/metrics';

/**
 * The consumer's own scheduling, without Kafka: a batch is handed to it as kafkajs would, with a
 * codec, producer and route that answer at once (so all of a record's work runs in microtasks).
 */
function consumerRouting(
  route: (request: CallbackRequest) => Promise<Disposition>,
  reads: 'requests' | 'retry-tiers' = 'requests',
  partitionConcurrency = 1024,
  send: (record: { key: Buffer | string | null }) => Promise<unknown> = () => Promise.resolve(),
) {
  const codec = {
    decode: (value: Buffer) => Promise.resolve(JSON.parse(value.toString('utf8')) as CallbackRequest),
    encode: () => Promise.resolve(Buffer.from('outcome')),
  } as unknown as AvroCodec;
  const producer = { send } as unknown as BatchingProducer;
  const consumer = new CallbackConsumer({
    kafka: {} as Kafka,
    codec,
    logger: pino({ level: 'silent' }),
    metrics: createCallbackSenderMetrics(new Registry()),
    groupId: 'unit',
    session: { sessionTimeout: 10_000, heartbeatInterval: 1_000 },
    reads,
    maxWaitTimeInMs: 100,
    topics: { requests: 'callback-requests', outcomes: 'outcomes', deadLetters: 'dlq', retry: (tier) => `retry-${tier}`, tiers: 8 },
    producer,
    route,
    partitionConcurrency,
  });
  // Stands for the kafkajs consumer that start() would create: only its pauses and resumes are seen.
  const calls: string[] = [];
  const commits: Array<{ offset: number; at: number }> = [];
  const partitions = (list: Array<{ topic: string; partitions: number[] }>) =>
    list.map((t) => `${t.topic}/${t.partitions.join(',')}`).join(' ');
  (consumer as unknown as { consumer: unknown }).consumer = {
    pause: (list: Array<{ topic: string; partitions: number[] }>) => calls.push(`pause ${partitions(list)}`),
    resume: (list: Array<{ topic: string; partitions: number[] }>) => calls.push(`resume ${partitions(list)}`),
    seek: (to: { topic: string; partition: number; offset: string }) => calls.push(`seek ${to.topic}/${to.partition}@${to.offset}`),
    commitOffsets: (list: Array<{ topic: string; partition: number; offset: string }>) => {
      for (const c of list) commits.push({ offset: Number(c.offset), at: Date.now() });
      return Promise.resolve();
    },
  };
  const handleBatch = (payload: EachBatchPayload) =>
    (consumer as unknown as { processBatch(p: EachBatchPayload): Promise<void> }).processBatch(payload);
  return Object.assign(handleBatch, { calls, commits });
}

function batchOf(
  count: number,
  topic = 'callback-requests',
  headers: (i: number) => Record<string, string> = () => ({}),
): EachBatchPayload {
  const messages: KafkaMessage[] = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`policy-${i}`),
    value: Buffer.from(JSON.stringify({ partner_id: 'p', policy_number: `policy-${i}`, delivery_id: `d-${i}` })),
    offset: String(i),
    timestamp: '0',
    attributes: 0,
    headers: headers(i),
  }));
  return {
    batch: { topic, partition: 0, messages },
    isRunning: () => true,
    isStale: () => false,
    resolveOffset: () => undefined,
    heartbeat: () => Promise.resolve(),
    pause: () => () => undefined,
  } as unknown as EachBatchPayload;
}

test('a large batch does not hold the event loop: I/O waiting behind it runs before all its records have been routed', async () => {
  const routed: string[] = [];
  const handleBatch = consumerRouting((request) => {
    routed.push(request.policy_number);
    return Promise.resolve({ kind: 'delivered', attempt: 1, httpStatus: 200, latencyMs: 1 });
  });
  let routedWhenIoRan = -1;
  // Stands for a partner's response arriving while the batch is handled.
  setImmediate(() => (routedWhenIoRan = routed.length));

  await handleBatch(batchOf(200));
  await new Promise((resolve) => setTimeout(resolve, 20));

  expect(routed).toHaveLength(200);
  expect(routedWhenIoRan).toBeGreaterThan(0);
  expect(routedWhenIoRan).toBeLessThan(200);
});

test("a retry tier's batch is read once: records not yet due are held, each started once due, the partition paused until the last", async () => {
  const routedAt = new Map<string, number>();
  const handleBatch = consumerRouting((request) => {
    routedAt.set(request.policy_number, Date.now());
    return Promise.resolve({ kind: 'delivered', attempt: 2, httpStatus: 200, latencyMs: 1 });
  }, 'retry-tiers');
  const start = Date.now();
  const dueAt = [start - 1, start + 60, start + 120];
  const resolved: string[] = [];
  const payload = batchOf(3, 'retry-1', (i) => ({ 'hookstream-due-at': String(dueAt[i]), 'hookstream-attempts': '1' }));
  (payload as unknown as { resolveOffset: (offset: string) => void }).resolveOffset = (offset) => resolved.push(offset);

  await handleBatch(payload);
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect([...routedAt.keys()]).toEqual(['policy-0']);
  expect(new Set(handleBatch.calls)).toEqual(new Set(['pause retry-1/0']));
  // The fetch position moves past the held records: they are not fetched again.
  expect(resolved).toEqual(['2']);

  await new Promise((resolve) => setTimeout(resolve, 400));
  expect([...routedAt.keys()]).toEqual(['policy-0', 'policy-1', 'policy-2']);
  dueAt.forEach((due, i) => expect(routedAt.get(`policy-${i}`)).toBeGreaterThanOrEqual(due));
  // Paused from the first held record until the last is started, then resumed.
  expect(handleBatch.calls.at(-1)).toBe('resume retry-1/0');
  expect(handleBatch.calls.slice(0, -1).every((call) => call === 'pause retry-1/0')).toBe(true);
  // A commit passes a record only once it has been handled (committed offset n: records below n are done).
  const { commits } = handleBatch;
  expect(commits.at(-1)?.offset).toBe(3);
  for (const commit of commits) expect(commit.at).toBeGreaterThanOrEqual(routedAt.get(`policy-${commit.offset - 1}`)!);
});

test('a tier batch that comes again (a fetch that was in flight when the partition paused) does not start its records twice', async () => {
  const routed: string[] = [];
  const handleBatch = consumerRouting((request) => {
    routed.push(request.policy_number);
    return Promise.resolve({ kind: 'delivered', attempt: 2, httpStatus: 200, latencyMs: 1 });
  }, 'retry-tiers');
  const dueAt = Date.now() + 50;
  const batch = () => batchOf(3, 'retry-2', () => ({ 'hookstream-due-at': String(dueAt), 'hookstream-attempts': '2' }));
  await handleBatch(batch());
  await handleBatch(batch());
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(routed).toEqual(['policy-0', 'policy-1', 'policy-2']);
});

test('a tier partition is paused as soon as records are held, even while the due ones wait for a slot: fetches cannot pile it into memory', async () => {
  let routed = 0;
  const handleBatch = consumerRouting(
    () => {
      routed += 1;
      return new Promise<Disposition>(() => undefined); // a partner that never answers: its slots stay taken
    },
    'retry-tiers',
    2,
  );
  await handleBatch(batchOf(10, 'retry-3', () => ({ 'hookstream-due-at': String(Date.now() - 1), 'hookstream-attempts': '3' })));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(routed).toBe(2);
  expect(handleBatch.calls).toEqual(['pause retry-3/0']);
});

test('when what became of a record cannot be written, the partition is read again from its lowest record not yet done, not from the one that failed', async () => {
  const failAfter = (ms: number) => new Promise((_resolve, reject) => setTimeout(() => reject(new Error('broker away')), ms));
  const handleBatch = consumerRouting(
    () => Promise.resolve({ kind: 'delivered', attempt: 1, httpStatus: 200, latencyMs: 1 }),
    'requests',
    1024,
    // The outcome of offset 2 fails first; those of offsets 0 and 1 fail after it.
    (record) => failAfter(String(record.key) === 'policy-2' ? 0 : 30),
  );
  await handleBatch(batchOf(3));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(handleBatch.calls.filter((call) => call.startsWith('seek'))).toEqual(['seek callback-requests/0@0']);
});

test.each([
  ['unreadable', 'garbage'],
  ['in the future', String(Date.now() + 86_400_000)],
  ['missing', undefined],
])(
  'a skipped record whose first-failure time is %s starts its wait now, so the deadline for skips applies to it',
  async (_what, firstFailureAt) => {
    const written: Array<Record<string, unknown>> = [];
    const handleBatch = consumerRouting(
      () =>
        Promise.resolve({
          kind: 'retry',
          tier: 2,
          dueAt: Date.now() + 30_000,
          attempts: 1,
          skipped: true,
          skips: 1,
          httpStatus: null,
          errorClass: 'CIRCUIT_OPEN',
          lastError: null,
          latencyMs: null,
        }),
      'requests',
      1024,
      (record) => {
        const { headers } = record as { headers?: Record<string, unknown> };
        if (headers) written.push(headers);
        return Promise.resolve();
      },
    );
    const before = Date.now();
    await handleBatch(
      batchOf(1, 'callback-requests', (): Record<string, string> =>
        firstFailureAt === undefined ? {} : { 'hookstream-first-failure-at': firstFailureAt },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const stamped = Number(written[0]?.['hookstream-first-failure-at']);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  },
);
