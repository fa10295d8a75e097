import { KafkaUnavailableError } from '../errors';
import { isRetryableKafkaError } from './retryable';
import type { IHeaders, Producer, RecordMetadata } from './types';

/** One record to write. */
export interface OutgoingRecord {
  topic: string;
  key: string | Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
  /** Explicit partition; otherwise murmur2 of the key, as the Java client chooses. */
  partition?: number;
}

/**
 * Writes one record at a time for callers that each wait for their own record (a webhook, a
 * callback's outcome), and tells a Kafka outage apart from a record the broker refuses.
 *
 * Concurrent records share Produce requests without help: librdkafka gathers what is sent within
 * the producer's `lingerMs` into one batch per partition. Each record has its own delivery report, so a record the broker refuses (too large,
 * an unknown topic) fails alone.
 */
export class RecordWriter {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly producer: Producer) {}

  /** Resolves once the broker acknowledged the record (acks=all); rejects with KafkaUnavailableError when Kafka did not answer in time. */
  send(record: OutgoingRecord): Promise<RecordMetadata[]> {
    const sent = this.producer
      .send({
        topic: record.topic,
        messages: [
          {
            key: record.key,
            value: record.value,
            ...(record.headers ? { headers: record.headers } : {}),
            ...(record.partition === undefined ? {} : { partition: record.partition }),
          },
        ],
      })
      .catch((error: unknown) => {
        throw isRetryableKafkaError(error) ? new KafkaUnavailableError('Kafka did not acknowledge a record', error) : error;
      });
    this.inFlight.add(sent);
    const settled = () => void this.inFlight.delete(sent);
    sent.then(settled, settled);
    return sent;
  }

  /** Resolves once every record sent so far has been acknowledged or has failed. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
