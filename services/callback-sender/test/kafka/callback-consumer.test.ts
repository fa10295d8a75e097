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
function consumerRouting(route: (request: CallbackRequest) => Promise<Disposition>) {
  const codec = {
    decode: (value: Buffer) => Promise.resolve(JSON.parse(value.toString('utf8')) as CallbackRequest),
    encode: () => Promise.resolve(Buffer.from('outcome')),
  } as unknown as AvroCodec;
  const producer = { send: () => Promise.resolve() } as unknown as BatchingProducer;
  const consumer = new CallbackConsumer({
    kafka: {} as Kafka,
    codec,
    logger: pino({ level: 'silent' }),
    metrics: createCallbackSenderMetrics(new Registry()),
    groupId: 'unit',
    reads: 'requests',
    maxWaitTimeInMs: 100,
    topics: { requests: 'callback-requests', outcomes: 'outcomes', deadLetters: 'dlq', retry: (tier) => `retry-${tier}`, tiers: 8 },
    producer,
    route,
    partitionConcurrency: 1024,
  });
  return (payload: EachBatchPayload) => (consumer as unknown as { processBatch(p: EachBatchPayload): Promise<void> }).processBatch(payload);
}

function batchOf(count: number): EachBatchPayload {
  const messages: KafkaMessage[] = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`policy-${i}`),
    value: Buffer.from(JSON.stringify({ partner_id: 'p', policy_number: `policy-${i}`, delivery_id: `d-${i}` })),
    offset: String(i),
    timestamp: '0',
    attributes: 0,
    headers: {},
  }));
  return {
    batch: { topic: 'callback-requests', partition: 0, messages },
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
