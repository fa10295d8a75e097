/*
 * The dead-letter headers of callback and document records: written by the callback-sender and the
 * document-fetcher, read by `hookstream dlq`. Names only; what each holds is said here. The retry
 * headers they carry beside these are retry-tiers/retry-headers.ts's.
 */

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
  /** Spring puts the exception's class name here; Hookstream the failure class (HTTP_STATUS, TIMEOUT …). */
  exceptionFqcn: 'kafka_dlt-exception-fqcn',
  exceptionMessage: 'kafka_dlt-exception-message',
} as const;

/** Who a dead letter concerns, readable without decoding the value (SRE tooling filters on them). */
export const DeadLetterIdentityHeaders = {
  partnerId: 'hookstream-partner-id',
  eventId: 'hookstream-event-id',
  deliveryId: 'hookstream-delivery-id',
} as const;
