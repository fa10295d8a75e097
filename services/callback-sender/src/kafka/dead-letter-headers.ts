/*
 * The dead-letter headers (names in shared's callback-headers.ts, `hookstream dlq` reads them):
 * Spring Kafka's, with Spring's encodings, so tools written for Spring dead-letter topics read ours.
 * Built by shared's deadLetterHeaders, which the document-fetcher writes too.
 */
export { DeadLetterIdentityHeaders, SpringDltHeaders, deadLetterHeaders } from '@hookstream/shared';
