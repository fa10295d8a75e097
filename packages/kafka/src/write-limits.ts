import type { Kafka } from './client';
import type { IHeaders } from './types';

/**
 * What a broker accepts in one write, and how to keep every write under it.
 *
 * A broker refuses a record batch (all the records of one produce request for one partition)
 * larger than the topic's `max.message.bytes` (the broker's `message.max.bytes`, 1 MiB, unless
 * the topic overrides it). A writer that sends whatever it has gathered meets that limit as soon
 * as a backlog makes its batches big: a consume-transform-produce loop then fails the same batch
 * for ever. So a writer's producer builds batches no larger than the limit (`batch.size`, see
 * ProducerOptions.maxBatchBytes), and a single record that can never fit is set aside by its
 * writer (dead-lettered) instead of failing its companions.
 */

/** Kafka's own default for `message.max.bytes` (and so for a topic's `max.message.bytes`). */
export const KAFKA_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

/** A record batch's fixed header (magic v2: base offset … record count). */
export const RECORD_BATCH_OVERHEAD_BYTES = 61;

/**
 * Upper bound of one record's framing inside a v2 record batch besides its key, value and header
 * bytes: length, attributes, timestamp delta, offset delta, key and value lengths and header count,
 * each a varint of at most 5 (10 for the timestamp) bytes.
 */
const RECORD_FRAMING_BYTES = 36;
/** Upper bound of one header's framing: its key and value lengths as varints. */
const HEADER_FRAMING_BYTES = 10;

/** A record as a producer takes it, for sizing. */
export interface SizedRecord {
  key?: string | Buffer | null;
  value: string | Buffer | null;
  headers?: IHeaders;
}

function byteLength(value: string | Buffer | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}

/** An upper bound of the bytes `record` takes in an uncompressed v2 record batch. */
export function recordSizeBound(record: SizedRecord): number {
  let size = RECORD_FRAMING_BYTES + byteLength(record.key) + byteLength(record.value);
  for (const [name, value] of Object.entries(record.headers ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const one of values) size += HEADER_FRAMING_BYTES + Buffer.byteLength(name) + byteLength(one);
  }
  return size;
}

/** True when `record` can be written at all to a topic whose limit is `maxBytes`. */
export function fitsInBatch(record: SizedRecord, maxBytes: number): boolean {
  return recordSizeBound(record) + RECORD_BATCH_OVERHEAD_BYTES <= maxBytes;
}

/**
 * The smallest `max.message.bytes` among `topics`: the most one write to any of them may carry.
 * Read from the cluster, so a topic or broker configured with another limit is honoured.
 */
export async function maxMessageBytesOf(kafka: Kafka, topics: readonly string[]): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const configs = await admin.describeTopicConfigs([...topics]);
    const limits = [...configs.values()].map((config) => {
      const limit = Number(config.get('max.message.bytes'));
      return Number.isSafeInteger(limit) && limit > 0 ? limit : KAFKA_DEFAULT_MAX_MESSAGE_BYTES;
    });
    return Math.min(...limits, Number.MAX_SAFE_INTEGER);
  } finally {
    await admin.disconnect();
  }
}
