/*
 * The Kafka headers of callback records in the retry tiers and the dead-letter topic: written by
 * the callback-sender, read by it and by `hookstream dlq`. Names only; what each holds is said here.
 */

/** Kafka headers a callback record carries through the retry tiers and into the dead-letter topic. */
export const CallbackRetryHeaders = {
  /** Attempts made so far (the first send is attempt 1). */
  attempts: 'hookstream-attempts',
  /** Epoch ms before which the record must not be attempted again. */
  dueAt: 'hookstream-due-at',
  /** Times the record went back unattempted (its partner's circuit open) since its last attempt. */
  skips: 'hookstream-skips',
  firstFailureAt: 'hookstream-first-failure-at',
  lastFailureAt: 'hookstream-last-failure-at',
  /** The last failure: `HTTP 500`, `TIMEOUT: …`; in a dead letter, why it was dead-lettered. */
  lastError: 'hookstream-last-error',
  /** Where the delivery was first read: callback-requests topic, partition, offset. */
  originalTopic: 'hookstream-original-topic',
  originalPartition: 'hookstream-original-partition',
  originalOffset: 'hookstream-original-offset',
} as const;

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
