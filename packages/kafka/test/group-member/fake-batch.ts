import type { EachBatchPayload, KafkaMessage } from '../../src/types';

export interface FakeBatchOptions {
  topic?: string;
  /** Offset (and policy number) of the first record. */
  from?: number;
  value?: (i: number) => string;
  headers?: (i: number) => Record<string, string>;
}

/**
 * A batch of `count` records of partition 0, keys `policy-<offset>`, as the consumer's eachBatch
 * gets it from a running group (never stale).
 */
export function fakeBatch(count: number, options: FakeBatchOptions = {}): EachBatchPayload {
  const { topic = 'requests', from = 0, value = (i) => `record ${i}`, headers = () => ({}) } = options;
  const messages: KafkaMessage[] = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`policy-${from + i}`),
    value: Buffer.from(value(from + i)),
    offset: String(from + i),
    timestamp: '0',
    headers: headers(from + i),
  }));
  return {
    batch: { topic, partition: 0, messages },
    isRunning: () => true,
    isStale: () => false,
    resolveOffset: () => undefined,
  };
}
