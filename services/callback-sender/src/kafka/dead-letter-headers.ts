import type { IHeaders } from '@hookstream/shared';

/**
 * Spring Kafka's dead-letter header names (`KafkaHeaders.DLT_*`), with Spring's encodings
 * (partition a 4-byte and offset and timestamp 8-byte big-endian integers, the rest UTF-8), so
 * tools written for Spring dead-letter topics read ours. Hookstream's own retry headers
 * (hookstream-attempts, -first-failure-at, …) travel beside them.
 */
export const SpringDltHeaders = {
  originalTopic: 'kafka_dlt-original-topic',
  originalPartition: 'kafka_dlt-original-partition',
  originalOffset: 'kafka_dlt-original-offset',
  originalTimestamp: 'kafka_dlt-original-timestamp',
  exceptionFqcn: 'kafka_dlt-exception-fqcn',
  exceptionMessage: 'kafka_dlt-exception-message',
} as const;

/** Who a dead letter concerns, readable without decoding the value (SRE tooling filters on them). */
export const DeadLetterIdentityHeaders = {
  partnerId: 'hookstream-partner-id',
  eventId: 'hookstream-event-id',
  deliveryId: 'hookstream-delivery-id',
} as const;

export function deadLetterHeaders(why: {
  originalTopic: string;
  originalPartition: number;
  originalOffset: bigint;
  originalTimestamp: bigint;
  errorClass: string;
  reason: string;
}): IHeaders {
  const int32 = Buffer.alloc(4);
  int32.writeInt32BE(why.originalPartition);
  const int64 = (value: bigint) => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigInt64BE(value);
    return buffer;
  };
  return {
    [SpringDltHeaders.originalTopic]: why.originalTopic,
    [SpringDltHeaders.originalPartition]: int32,
    [SpringDltHeaders.originalOffset]: int64(why.originalOffset),
    [SpringDltHeaders.originalTimestamp]: int64(why.originalTimestamp),
    // Spring puts the exception's class name here; ours is the failure class.
    [SpringDltHeaders.exceptionFqcn]: why.errorClass,
    [SpringDltHeaders.exceptionMessage]: why.reason.slice(0, 1000),
  };
}
