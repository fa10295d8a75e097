import { Registry, type AvroCodec, type RecordWriter, type Kafka } from '@hookstream/shared';
import pino from 'pino';
import { CallbackConsumer } from '../../src/kafka/callback-consumer';
import { createCallbackSenderMetrics } from '../../src/metrics';

const NOW = 5_000_000;

/** The retry tiers' consumer, not started; the held records' due times come from `heldDueTimes`. */
function retryTiersHolding(heldDueTimes: Map<string, number>) {
  const registry = new Registry();
  const consumer = new CallbackConsumer({
    kafka: {} as Kafka,
    codec: {} as AvroCodec,
    logger: pino({ level: 'silent' }),
    metrics: createCallbackSenderMetrics(registry),
    groupId: 'unit-retries',
    session: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 },
    topics: { requests: 'callback-requests', outcomes: 'outcomes', deadLetters: 'dlq', retry: (tier) => `retry-${tier}`, tiers: 8 },
    producer: {} as RecordWriter,
    sendCallback: () => Promise.reject(new Error('not called')),
    partitionConcurrency: 16,
    reads: 'retry-tiers',
    maxWaitTimeInMs: 250,
    now: () => NOW,
  });
  // Stands for shared's ConcurrentConsumer holding records (its own tests cover how it finds them).
  (consumer as unknown as { consumer: { heldDueTimes: () => Map<string, number> } }).consumer.heldDueTimes = () => heldDueTimes;
  return { consumer, registry };
}

test('when tiers hold records past and before their due times, then each tier reports how far past it is, 0 for the others', () => {
  const { consumer } = retryTiersHolding(
    new Map([
      ['retry-2', NOW - 1_500],
      ['retry-5', NOW + 60_000],
    ]),
  );
  expect(consumer.retryOverdueSeconds()).toEqual(new Map([1, 2, 3, 4, 5, 6, 7, 8].map((tier) => [tier, tier === 2 ? 1.5 : 0])));
});

test('when scraped, then hookstream_callback_retry_overdue_seconds has the retry tiers’ consumer’s figure for every tier', async () => {
  const { registry } = retryTiersHolding(new Map([['retry-8', NOW - 30_000]]));
  const text = await registry.metrics();
  expect(text).toContain('hookstream_callback_retry_overdue_seconds{tier="8"} 30');
  expect(text).toContain('hookstream_callback_retry_overdue_seconds{tier="1"} 0');
  expect(text.match(/^hookstream_callback_retry_overdue_seconds\{/gm)).toHaveLength(8);
});
