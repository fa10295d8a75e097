/*
 * What a service with retry tiers (the callback-sender, the document-fetcher) writes of what
 * became of a record it read: the records for its next tier or its dead-letter topic, with the
 * headers that say where the record was first read and why it was dead-lettered (Spring's
 * dead-letter headers, which `hookstream dlq` reads). Each service's writer extends this one with
 * what its own dispositions become (its outcomes, its metrics); the GroupMember writes the records
 * returned in the member's next transaction.
 */
import type { Logger } from 'pino';
import type { AvroCodec } from '../avro/registry-codec';
import { deadLetterHeaders } from './dead-letter-headers';
import type { ConsumedRecord } from '../group-member/options';
import type { OutputRecord } from '../group-member/member-transactions';
import type { IHeaders } from '../types';
import { originHeaders, originOf, type Origin } from './retry-headers';
import type { RetryTiers } from './retry-tiers';

/** The topics every tiered service writes to besides its own (real names). */
export interface DispositionTopics {
  deadLetters: string;
  tiers: RetryTiers;
}

export interface TieredDispositionWriterOptions<Metrics, Topics extends DispositionTopics> {
  codec: AvroCodec;
  logger: Logger;
  metrics: Metrics;
  topics: Topics;
  now: () => number;
}

/** What differs between the services in what they write of a record that cannot be decoded. */
export interface UndecodableRecords {
  /** Counts it in the service's metrics. */
  count: () => void;
  /**
   * Where its dead letter says it was read: where it was first read (carried through the tiers,
   * and written in its headers too), or where this reading found it.
   */
  origin: 'first-read' | 'read';
}

/** A disposition: why a record is dead-lettered. */
export interface DeadLetterReason {
  errorClass: string;
  reason: string;
}

export class TieredDispositionWriter<Metrics, Topics extends DispositionTopics> {
  constructor(
    protected readonly options: TieredDispositionWriterOptions<Metrics, Topics>,
    private readonly undecodableRecords: UndecodableRecords,
  ) {}

  /** A record that cannot be decoded: to the dead-letter topic as it is. */
  undecodable(record: ConsumedRecord, reason: string): OutputRecord[] {
    this.undecodableRecords.count();
    const why = { errorClass: 'DECODE_ERROR', reason };
    const { topic, partition, message } = record;
    const firstRead = this.undecodableRecords.origin === 'first-read';
    const origin = firstRead ? this.originOf(record) : { topic, partition, offset: message.offset };
    const headers = { ...message.headers, ...(firstRead ? originHeaders(origin) : {}), ...this.deadLetterHeaders(origin, record, why) };
    return [this.asRead(this.options.topics.deadLetters, record, headers)];
  }

  /** The record as it was read, with new headers, for another topic. */
  protected asRead(topic: string, { message }: ConsumedRecord, headers: IHeaders): OutputRecord {
    return { topic, message: { key: message.key ?? null, value: message.value, headers } };
  }

  /** Where the record was first read, carried from tier to tier. */
  protected originOf(record: ConsumedRecord): Origin {
    return originOf(record, this.options.topics.tiers.isTier(record.topic));
  }

  /** Spring's dead-letter headers: where the record was first read, and why it is dead-lettered. */
  protected deadLetterHeaders(origin: Origin, record: ConsumedRecord, why: DeadLetterReason): IHeaders {
    return deadLetterHeaders({
      originalTopic: origin.topic,
      originalPartition: origin.partition,
      originalOffset: BigInt(origin.offset),
      originalTimestamp: BigInt(record.message.timestamp),
      errorClass: why.errorClass,
      reason: why.reason,
    });
  }
}
