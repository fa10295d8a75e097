// @hookstream/kafka: the Kafka runtime (README.md). What other packages use, and nothing else: add a name only when another package needs it.
export { AvroCodec, valueSubject } from './avro/registry-codec';
export { defaultSchemasDir, readSchemaFile } from './avro/schema-files';
export { createKafkaClient, Kafka, registerKafkaRequestCounter, sizeLibuvThreadPool } from './client';
export { CompactedView } from './compacted-view';
export { consumerLagGauges, ConsumerLagMonitor, type GroupTopics } from './consumer-lag';
export { GroupMember } from './group-member/group-member';
export { type OutputRecord } from './group-member/member-transactions';
export { type ConsumedRecord, type GroupSession, groupSessionOf } from './group-member/options';
export { PartitionProbe } from './partition-probe';
export { waitForKafkaReady } from './readiness';
export { inRecordSpan, sampledTraceIdOf, withTraceContextOf } from './record-trace';
export { RecordWriter } from './record-writer';
export { DeadLetterIdentityHeaders, SpringDltHeaders } from './retry-tiers/dead-letter-names';
export { TieredDispositionWriter, type TieredDispositionWriterOptions } from './retry-tiers/disposition-writer';
export {
  headerCount,
  headerText,
  type Origin,
  originOf,
  retryHeaders,
  RetryHeaders,
  type RetryHistory,
  retryHistoryOf,
} from './retry-tiers/retry-headers';
export { RetryTiers } from './retry-tiers/retry-tiers';
export { nextTierAfterFailure, retryScheduleMs, tierAtLeast } from './retry-tiers/tier-schedule';
export { isKafkaClientError, isRetryableKafkaError } from './retryable';
export { kafkaSecurity } from './security';
export { clusterReplicationFactor, ensureTopics } from './topic-admin';
export { TopicReader } from './topic-reader';
export {
  DOCUMENT_RETRY_TIER_COUNT,
  documentRetryTopicName,
  type ResolvedTopic,
  RETRY_TIER_COUNT,
  retryTopicName,
  topicCatalogue,
  TopicNames,
} from './topics';
export {
  type Admin,
  type Batch,
  type Consumer,
  type IHeaders,
  type KafkaMessage,
  type Message,
  type PartitionBounds,
  type Producer,
} from './types';
export { fitsInBatch, maxMessageBytesOf, recordSizeBound } from './write-limits';
