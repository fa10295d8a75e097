import { KafkaUnavailableError } from '@hookstream/errors';
import { isRetryableKafkaError } from './retryable';
import type { IHeaders, Producer, RecordMetadata } from './types';

/** How often records awaiting their acknowledgement are checked against the producer's connections (its statistics' interval). */
const UNREACHABLE_CHECK_MS = 250;

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

  /** Records awaiting their acknowledgement, each with how to give up on it. */
  private readonly waiting = new Set<{ topic: string; giveUp: (error: Error) => void }>();
  private watch: NodeJS.Timeout | undefined;

  constructor(private readonly producer: Producer) {}

  /**
   * Resolves once the broker acknowledged the record (acks=all); rejects with KafkaUnavailableError
   * when Kafka did not answer in time, at once when no leader of the topic is connected, and as soon
   * as that becomes so while it waits: the caller answers then, rather than after waiting for a
   * broker that is gone. A record given up on stays with librdkafka, which may still write it (as
   * after any timeout, a refused write may have been made; an acknowledged one always was).
   */
  send(record: OutgoingRecord): Promise<RecordMetadata[]> {
    if (!this.producer.reachable(record.topic)) {
      return Promise.reject(new KafkaUnavailableError(`no leader of ${record.topic} is connected`));
    }
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
    return this.unlessUnreachable(record.topic, sent);
  }

  /** `sent`, or a KafkaUnavailableError once the topic's leaders are seen gone while it waits. */
  private unlessUnreachable(topic: string, sent: Promise<RecordMetadata[]>): Promise<RecordMetadata[]> {
    return new Promise((resolve, reject) => {
      const entry = { topic, giveUp: reject };
      this.waiting.add(entry);
      this.watch ??= setInterval(() => this.giveUpUnreachable(), UNREACHABLE_CHECK_MS).unref();
      sent.then(resolve, reject).finally(() => {
        this.waiting.delete(entry);
        if (this.waiting.size > 0) return;
        clearInterval(this.watch);
        this.watch = undefined;
      });
    });
  }

  private giveUpUnreachable(): void {
    for (const entry of this.waiting) {
      if (this.producer.reachable(entry.topic)) continue;
      this.waiting.delete(entry);
      entry.giveUp(new KafkaUnavailableError(`the connection to the leaders of ${entry.topic} was lost`));
    }
  }

  /** Resolves once every record sent so far has been acknowledged or has failed. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
