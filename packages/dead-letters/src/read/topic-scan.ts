import { withTimeout } from '@hookstream/runtime';
import { describeError, KafkaUnavailableError } from '@hookstream/errors';
import { type Kafka, type KafkaMessage } from '@hookstream/kafka';
import { TopicReader } from '@hookstream/kafka';
import { type Logger } from '@hookstream/runtime';
import type { DlqRecord } from './dead-letter';

/** How long a scan may take before the command gives up (a broker that answers nothing). */
const SCAN_TIMEOUT_MS = 5 * 60_000;
/**
 * How long a fetch waits at a partition's end for new records. A scan stops at the end: a fetch
 * there answers empty only after this wait, and that empty answer is how the end is seen, so each
 * scan paid the reader's default 100 ms about twice (the fetch, then the read that hears of it);
 * a partner's resend runs four scans (bench/src/recover.ts).
 */
const SCAN_FETCH_WAIT_MS = 10;

export interface TopicScan {
  kafka: Kafka;
  logger: Logger;
  topic: string;
  /** Start at the first record at or after this time (epoch ms); default: each partition's beginning. */
  fromTimestamp?: number;
  /** Called with each fetch's records of one partition, in offset order. */
  onRecords: (records: DlqRecord[]) => Promise<void> | void;
}

/**
 * Reads a topic from its beginning (or a time) up to its end as it is when the scan starts, with
 * @hookstream/kafka's group-less TopicReader (read_committed: aborted transactions are never seen), and
 * stops. Joins no consumer group and commits nothing. Resolves with the topic's partition count.
 */
export async function scanTopic(scan: TopicScan): Promise<number> {
  const { kafka, logger, topic } = scan;
  const reader = new TopicReader({
    kafka,
    logger,
    topic,
    maxWaitMs: SCAN_FETCH_WAIT_MS,
    ...(scan.fromTimestamp === undefined ? {} : { fromTimestamp: scan.fromTimestamp }),
    apply: async (messages, partition) => scan.onRecords(messages.map((m) => recordOf(partition, m))),
  });
  const started = reader.start();
  started.catch(() => undefined); // a timeout below stops the reader; its start then fails unobserved
  try {
    await withTimeout(started, SCAN_TIMEOUT_MS, `${topic} could not be read to its end within ${SCAN_TIMEOUT_MS / 1000} s`);
    return reader.partitionCount;
  } catch (error) {
    const text = describeError(error);
    if (/UNKNOWN_TOPIC|does not host this topic-partition|not present in metadata/i.test(text)) {
      throw new KafkaUnavailableError(`topic ${topic} does not exist: run \`hookstream topics ensure\``, error);
    }
    throw new KafkaUnavailableError(`could not read ${topic} (${text})`, error);
  } finally {
    await reader.stop();
  }
}

/** A fetched record with its headers as bytes (the client gives strings or arrays too). */
function recordOf(partition: number, message: KafkaMessage): DlqRecord {
  const headers: Record<string, Buffer> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headers[name] = Buffer.isBuffer(first) ? first : Buffer.from(first);
  }
  return { partition, offset: message.offset, timestamp: Number(message.timestamp), key: message.key, value: message.value, headers };
}
