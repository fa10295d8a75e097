import type { EachBatchPayload, KafkaMessage } from 'kafkajs';

export interface FakeBatchOptions {
  topic?: string;
  /** Offset (and policy number) of the first record. */
  from?: number;
  value?: (i: number) => string;
  headers?: (i: number) => Record<string, string>;
}

/**
 * A kafkajs batch of `count` records of partition 0, keys `policy-<offset>`, as the consumer's
 * eachBatch gets it from a running group (never stale, heartbeats succeed).
 */
export function fakeBatch(count: number, options: FakeBatchOptions = {}): EachBatchPayload {
  const { topic = 'requests', from = 0, value = (i) => `record ${i}`, headers = () => ({}) } = options;
  const messages: KafkaMessage[] = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`policy-${from + i}`),
    value: Buffer.from(value(from + i)),
    offset: String(from + i),
    timestamp: '0',
    attributes: 0,
    headers: headers(from + i),
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
