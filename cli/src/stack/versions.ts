/**
 * Pinned versions of the local stack. Kafka 4.3.1 is the newest release complete on Maven
 * Central here; the integration tests prove the Kafka client works with it (produce, idempotent
 * produce, transactions with sendOffsets, consumer groups, pause/resume, compaction).
 */
export const STACK_VERSIONS = {
  kafka: '4.3.1',
  /** log4j 2 with the slf4j 1.x binding: the broker logs through slf4j 1.7. */
  log4j: '2.24.3',
  /** 3.3.x serves the Confluent-compatible API and needs Java 21+. */
  apicurio: '3.3.3',
  /** The S3 API the document store's tests run against (Java 17+). */
  s3proxy: '4.1.0',
} as const;

/** Kafka 4 brokers need Java 17+; Apicurio 3.3 needs 21+. */
export const MIN_JAVA = { kafka: 17, apicurio: 21 } as const;
