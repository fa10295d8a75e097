import type { IHeaders, Producer, RecordMetadata, TopicMessages } from 'kafkajs';
import { KafkaUnavailableError } from '../errors';
import { isRetryableKafkaError } from './retryable';
import { KAFKA_DEFAULT_MAX_MESSAGE_BYTES, RECORD_BATCH_OVERHEAD_BYTES, recordSizeBound } from './write-limits';

/** One record to produce. */
export interface OutgoingRecord {
  topic: string;
  key: string | Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
  /** Explicit partition; otherwise kafkajs's default (murmur2 of the key, like the Java client). */
  partition?: number;
}

export interface BatchingProducerOptions {
  /** Most records in one Produce request. Default 500. */
  maxBatchRecords?: number;
  /**
   * Most bytes in one Produce request (size bounds of its records). Default Kafka's default
   * `max.message.bytes`, so a burst of large records never makes a batch the broker refuses.
   */
  maxBatchBytes?: number;
  /** Longest a record waits for companions before its batch is sent, in ms. Default 2. */
  lingerMs?: number;
}

interface Pending {
  record: OutgoingRecord;
  resolve: (metadata: RecordMetadata[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces concurrent `send()` calls into one `sendBatch()`.
 *
 * Why: kafkajs sends one Produce request per `send()`, and an idempotent producer holds a
 * lock so only one request is in flight per broker: 16 concurrent single-record sends
 * reach ~2,000 records/s here, batches of 500 ~27,000/s (measured on the local stack).
 *
 * How: while a batch is in flight, new records queue; when it completes, everything
 * queued goes out in the next batch. An idle producer sends after at most `lingerMs`,
 * so a lone request pays ~no extra latency. Each caller's promise settles when the
 * broker acknowledged (acks=all) the batch holding its record, or rejects with that
 * batch's error; records are never silently dropped.
 */
export class BatchingProducer {
  private readonly queue: Pending[] = [];
  private inFlight = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly maxBatchRecords: number;
  private readonly maxBatchBytes: number;
  private readonly lingerMs: number;
  /** Sizes of the batches sent so far; for tests and benchmarks. */
  readonly stats = { batches: 0, records: 0 };

  constructor(
    private readonly producer: Producer,
    options: BatchingProducerOptions = {},
  ) {
    this.maxBatchRecords = options.maxBatchRecords ?? 500;
    this.maxBatchBytes = options.maxBatchBytes ?? KAFKA_DEFAULT_MAX_MESSAGE_BYTES;
    this.lingerMs = options.lingerMs ?? 2;
  }

  /** Queues one record; resolves with the acknowledged batch's metadata for the record's topic. */
  send(record: OutgoingRecord): Promise<RecordMetadata[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every queued record has been sent (or failed). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight) {
      await new Promise((r) => setTimeout(r, 1));
    }
  }

  private schedule(): void {
    if (this.inFlight) return; // the running batch's completion picks the queue up
    if (this.queue.length >= this.maxBatchRecords) {
      clearTimeout(this.timer);
      this.timer = undefined;
      void this.sendNextBatch();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.sendNextBatch();
    }, this.lingerMs);
  }

  private async sendOneByOne(batch: Pending[]): Promise<void> {
    for (const p of batch) {
      const { record } = p;
      try {
        const metadata = await this.producer.send({
          topic: record.topic,
          acks: -1,
          messages: [
            {
              key: record.key,
              value: record.value,
              ...(record.headers ? { headers: record.headers } : {}),
              ...(record.partition === undefined ? {} : { partition: record.partition }),
            },
          ],
        });
        this.stats.records += 1;
        p.resolve(metadata);
      } catch (error) {
        p.reject(isRetryableKafkaError(error) ? new KafkaUnavailableError('Kafka did not acknowledge a record', error) : error);
      }
    }
  }

  /** How many queued records the next batch takes: up to the record and byte limits, at least one. */
  private nextBatchLength(): number {
    let bytes = RECORD_BATCH_OVERHEAD_BYTES;
    let count = 0;
    for (const { record } of this.queue) {
      if (count >= this.maxBatchRecords) break;
      bytes += recordSizeBound(record);
      if (count > 0 && bytes > this.maxBatchBytes) break;
      count += 1;
    }
    return count;
  }

  private async sendNextBatch(): Promise<void> {
    if (this.inFlight || this.queue.length === 0) return;
    this.inFlight = true;
    const batch = this.queue.splice(0, this.nextBatchLength());
    try {
      const byTopic = new Map<string, TopicMessages>();
      for (const { record } of batch) {
        let entry = byTopic.get(record.topic);
        if (!entry) {
          entry = { topic: record.topic, messages: [] };
          byTopic.set(record.topic, entry);
        }
        entry.messages.push({
          key: record.key,
          value: record.value,
          ...(record.headers ? { headers: record.headers } : {}),
          ...(record.partition === undefined ? {} : { partition: record.partition }),
        });
      }
      const metadata = await this.producer.sendBatch({ topicMessages: [...byTopic.values()], acks: -1 });
      this.stats.batches += 1;
      this.stats.records += batch.length;
      for (const p of batch) p.resolve(metadata.filter((m) => m.topicName === p.record.topic));
    } catch (error) {
      if (isRetryableKafkaError(error)) {
        const failure = new KafkaUnavailableError(`Kafka did not acknowledge a batch of ${batch.length} record(s)`, error);
        for (const p of batch) p.reject(failure);
      } else if (batch.length === 1) {
        batch[0]!.reject(error);
      } else {
        // A record the broker refuses (too large, unknown topic) must not fail its companions:
        // send each on its own so only the bad one fails.
        await this.sendOneByOne(batch);
      }
    } finally {
      this.inFlight = false;
      // Records that queued during the flight have waited already: send them now.
      if (this.queue.length > 0) void this.sendNextBatch();
    }
  }
}
