import { describeError } from '@hookstream/errors';
import { type AvroCodec, type Kafka } from '@hookstream/kafka';
import { type Logger } from '@hookstream/runtime';
import type { Completion } from '../../domain/request-id-ledger';

/** The fields of a partner-events record the search reads (schemas/partner-event.avsc). */
interface AcceptedWebhookRecord {
  partner_id: string;
  request_id: string | null;
  transaction_number: string;
  transaction_type: 'POLICY' | 'CLAIM';
  payload_fingerprint: string;
}

export interface SearchOptions {
  kafka: Kafka;
  codec: AvroCodec;
  /** partner-events. */
  topic: string;
  logger: Logger;
}

/** Records taken from the client per call. */
const RECORDS_PER_READ = 500;

/**
 * Clocks apart: a record's timestamp is its producer's clock (CreateTime, set when the record is
 * handed to the client, just after the claim), a claim's time the database server's.
 */
export const CLOCK_MARGIN_MS = 10_000;

/**
 * Looks for an abandoned claimant's partner event: the one Kafka read the ledger makes, and only
 * when a claim takes over an abandoned one, because the replica may have died after writing its
 * event and before recording the completion (docs/inbound.md). One-shot and bounded: every
 * partition (the event's key is its transaction_number, which the claim does not know), from the
 * first offset at `from` − margin to the end offsets as they are now, but no further than the
 * first offset at `until` + margin: a claimant hands its event to the client right after its
 * claim and gives up within the claim TTL, so its record's timestamp is within that span.
 */
export class AbandonedClaimSearch {
  constructor(private readonly options: SearchOptions) {}

  /** The key's first event in the span (its completion), none, or a throw when the topic could not be read within `timeoutMs`. */
  async find(partnerId: string, requestId: string, from: number, until: number, timeoutMs: number): Promise<Completion | undefined> {
    const { topic } = this.options;
    const deadline = Date.now() + timeoutMs;
    const positions = new Map<number, bigint>();
    // Where the client reached a partition's end (applied after the records read with it, as TopicReader does).
    const endsReached = new Map<number, bigint>();
    const consumer = this.options.kafka.partitionConsumer({
      maxWaitMs: 50,
      onEnd: (endTopic, partition, offset) => endTopic === topic && endsReached.set(partition, offset),
    });
    await consumer.connect();
    try {
      const partitions = await consumer.partitionsOf(topic);
      const [starts, caps, bounds] = await Promise.all([
        consumer.offsetsAt(topic, partitions, from - CLOCK_MARGIN_MS),
        consumer.offsetsAt(topic, partitions, until + CLOCK_MARGIN_MS),
        consumer.bounds(topic, partitions),
      ]);
      const ends = new Map(bounds.map((b) => [b.partition, minOf(b.end, caps.get(b.partition) ?? b.end)]));
      for (const p of partitions) positions.set(p, starts.get(p) ?? 0n);
      const open = () => partitions.filter((p) => positions.get(p)! < ends.get(p)!);
      if (open().length === 0) return undefined;
      consumer.assign(open().map((partition) => ({ topic, partition, offset: positions.get(partition)! })));
      while (open().length > 0) {
        if (Date.now() > deadline) throw new Error(`${topic} could not be searched for the abandoned claim's event in time`);
        for (const { partition, message } of await consumer.consume(RECORDS_PER_READ)) {
          const offset = BigInt(message.offset);
          if (offset >= ends.get(partition)!) {
            // Past the span (what lay between was not a record): this partition is searched.
            positions.set(partition, ends.get(partition)!);
            continue;
          }
          positions.set(partition, offset + 1n);
          const record = message.value ? await this.decode(message.value) : undefined;
          if (record?.partner_id === partnerId && record.request_id === requestId) {
            return {
              fingerprint: record.payload_fingerprint,
              requestId,
              transactionNumber: record.transaction_number,
              transactionType: record.transaction_type,
            };
          }
        }
        // Past transaction markers and aborted records at a partition's end: nothing there to read.
        for (const [partition, end] of endsReached) if (end > positions.get(partition)!) positions.set(partition, end);
        endsReached.clear();
      }
      return undefined;
    } finally {
      await consumer.disconnect().catch(() => undefined);
    }
  }

  private async decode(value: Buffer): Promise<AcceptedWebhookRecord | undefined> {
    try {
      return (await this.options.codec.decode(value, this.options.topic)) as AcceptedWebhookRecord;
    } catch (error) {
      this.options.logger.error({ topic: this.options.topic, err: describeError(error) }, 'undecodable record: skipped by the search');
      return undefined;
    }
  }
}

const minOf = (a: bigint, b: bigint) => (a < b ? a : b);
