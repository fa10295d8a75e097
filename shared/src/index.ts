// The public surface of @hookstream/shared: what the services, the CLI, the benches and the tests may use.
// Everything else under src/ is internal to this package; add a name here only when another package needs it.

// Errors: one base class, one list of codes.
export {
  AvroInvalidError,
  ConfigError,
  describeError,
  ErrorCodes,
  HookstreamError,
  isRetryable,
  KafkaUnavailableError,
  RegistryUnavailableError,
  StackError,
  StoreUnavailableError,
} from './errors';

// The PostgreSQL store of state that must not live in a replica's heap.
export {
  asStoreError,
  isStoreUnavailable,
  openStateStore,
  stateSchemaOf,
  type StateStore,
  type StateStoreOptions,
} from './store/state-store';

// Configuration, logging, metrics and the process around a service.
export {
  apiKeyPeppersSetting,
  portalTokenKeysSetting,
  consumerLagSetting,
  kafkaSettingsSchema,
  loadConfig,
  secretsKeysSetting,
  serviceSchemaWithOpsPort,
  serviceSchemaWithPort,
  serviceSettingsSchema,
  stateStoreSettings,
} from './config';
export { createLogger, type Logger, routeProcessWarnings } from './logging';
export { Counter, Gauge, Histogram, LATENCY_BUCKETS_SECONDS, Registry } from './metrics';
export { sleep, sleepUnlessAborted, untilAborted, withTimeout } from './async';
export { type RunningHttpServer, startHttpServer } from './http/server';

// Outbound HTTP to partner-supplied URLs (callbacks, tokens, documents): the SSRF guard, and each partner's share of it.
export {
  createSsrfGuardedAgent,
  isSsrfRefused,
  parseSsrfAllowList,
  type RefusedRangeName,
  refusedRange,
  type ResolveAllAddresses,
  SSRF_REFUSED,
  type SsrfGuardedAgentOptions,
  type SsrfPolicy,
  SsrfRefusedError,
} from './http/ssrf-guard';
export { ssrfAllowSetting } from './http/ssrf-allow-setting';
export { PartnerLimiter, type PartnerLimiterOptions } from './isolation/partner-limiter';
export { createServiceRuntime, runService, type ServiceListeners } from './service-runtime';
export { errorBody, type ErrorBody } from './http/error-body';

// A service run as a child process (the CLI's start, the benches, the tests), and a free port for it.
export {
  describeExit,
  type ExitStatus,
  ServiceChild,
  type ServiceChildOptions,
  ServiceNotReadyError,
  SERVICES_WITH_OPS_PORT,
  startServiceChild,
  untilReady,
} from './process/service-child';
export { freePort } from './process/free-port';

// Kafka: clients, producing within the broker's limits, consumer groups, whole-topic readers, topics.
export {
  type Admin,
  type Batch,
  type Consumer,
  type ConsumerOptions,
  createKafkaClient,
  type EachBatchPayload,
  type IHeaders,
  type Kafka,
  type KafkaMessage,
  type Message,
  type Producer,
} from './kafka/client';
export { isKafkaClientError, isRetryableKafkaError } from './kafka/retryable';
export { kafkaSecurity, kafkaSecurityConfig, type KafkaSecurity, type KafkaSecurityConfig } from './kafka/security';
export { RecordWriter } from './kafka/record-writer';
export { fitsInBatch, maxMessageBytesOf, recordSizeBound } from './kafka/write-limits';
// The one consumer-group member every service reads through (its modes: docs/architecture.md#one-group-member).
export { GroupMember, groupSessionOf, type ConsumedRecord, type GroupSession, type OutputRecord } from './kafka/group-member/index';
export { TopicReader } from './kafka/topic-reader';
export {
  DOCUMENT_RETRY_TIER_COUNT,
  documentRetryTopicName,
  RETRY_TIER_COUNT,
  retryTopicName,
  topicCatalogue,
  TopicNames,
} from './kafka/topics';
export { clusterReplicationFactor, ensureTopics } from './kafka/topic-admin';
export { waitForKafkaReady } from './kafka/readiness';
export { ConsumerLagMonitor, consumerLagGauges, type ConsumerLagGauges } from './kafka/consumer-lag';
export { PartitionProbe, type FirstRecord, type PartitionBounds } from './kafka/partition-probe';

// Dead-letter topics: how many dead letters they hold, and how many no replay re-queued.
export { DeadLetterDepth, deadLetterGauges, type DeadLetterGauges } from './dead-letters/dead-letter-depth';
export { deadLetterHeaders } from './dead-letters/dead-letter-headers';
export { watchBacklog, type BacklogWatch } from './monitoring/backlog-watch';

// Avro records and the schema registry.
export { defaultSchemasDir } from './avro/schema-files';
export { AvroCodec, valueSubject } from './avro/registry-codec';

// Partners: the model, onboarding specs, secrets at rest, API keys, the directory read by services.
export {
  type AuthMethod,
  type CallbackEndpoint,
  type JwtAlgorithm,
  type Md5Part,
  type OutboundAuth,
  type Partner,
  partnerFromRecord,
  partnerToRecord,
  secretContext,
} from './partners/model';
export { publicOutboundAuth, type PublicOutboundAuth } from './partners/public-auth';
export { PartnerSpecError } from './partners/partner-spec-error';
export { partnerSpecSchema } from './partners/partner-spec-schema';
export { AUTH_METHODS } from './partners/outbound-auth-spec';
export { type DataKey, type EncryptedSecret, generateKeyringValue, parseKeyring, SecretBox } from './partners/secret-box';
export { ApiKeyHasher } from './partners/api-keys';
export { policyBodyFieldPaths } from './partners/policy-fields';
export { PartnerDirectory } from './partners/partner-directory';
export { PartnerStore } from './partners/partner-store';
export { endpointWants } from './partners/endpoint-subscription';
export {
  addApiKey,
  createPartner,
  describePartner,
  type PartnerAdminDeps,
  MAX_ROTATION_OVERLAP_MS,
  revokeApiKey,
  rotateApiKey,
  setPartnerStatus,
  updatePartner,
} from './partners/partner-admin';

// Operators of the operator API, and changes written with their audit record (CLI and APIs alike).
export { describeOperator, type Operator, type OperatorRole, OPERATOR_ROLES } from './operators/operator';
export { OperatorInputError } from './operators/operator-admin';
export { OperatorDirectory } from './operators/operator-directory';
export { type Actor, type AdminAuditEntry, type AuditedChange, cliActor } from './admin/audit-entry';
export { AuditedWriter, type ChangedRecord } from './admin/audited-writer';
export { NotFoundError } from './admin/not-found';
export { OperatorChanges } from './admin/operator-changes';
export { PartnerChanges } from './admin/partner-changes';
export { KEY_LIMITS, PartnerChangeRefused, isLive } from './partners/key-limits';
export { FieldProblemsError, type FieldProblem } from './field-problems';
export { CompactedView } from './kafka/compacted-view';

// Policy-status events and the callback bodies mapped from them.
export { type PolicyStatusEventValue } from './policy/policy-event-value';
export { policyStatusEventType } from './policy/avro-form';
export { parsePolicyEventJson } from './policy/parse-policy-event';
export { PolicyEventError } from './policy/policy-event-error';
export { buildCallbackBody } from './policy/callback-body';
export { CallbackBodyError } from './policy/callback-body-error';

// Callback requests: what the policy-status-consumer hands the callback-sender, latest-wins's view of them,
// and the strings callbacks are signed over (the sender signs them, the delivery log shows them).
export { CallbackRequestHeaders, type CallbackRequestValue } from './callbacks/callback-request';
export { EmittedPolicyVersions } from './callbacks/emitted-versions';
export { DeadLetterIdentityHeaders, SpringDltHeaders } from './callbacks/callback-headers';
export {
  hmacSha256SignedString,
  md5ReadsBody,
  md5SignedString,
  standardWebhooksSignedString,
  StandardWebhooksHeaders,
  valueAtPath,
} from './callbacks/signed-string';
export { headerValue, SecretPlaceholders, signedStringOfRequest } from './callbacks/signed-request';

// Retry tiers: the schedule, the headers a record carries through them, which topic is which tier.
export * from './retry-tiers';

// Inbound documents: what the document-fetcher writes, keeps in its retry tiers and dead-letters.
export { DocumentHeaders, type DocumentFetchRequestValue, type PartnerDocumentValue } from './documents/document-records';
export { documentIdOf, webhookIdOf, type PartnerEventValue } from './documents/webhook-identity';
export * from './dlq';

// Inbound webhooks refused an authenticated partner, or answered from the idempotency ledger: what the ingress records and the delivery log shows the partner.
export { type InboundRejectionValue } from './inbound/inbound-rejection';
export { type InboundReplayValue } from './inbound/inbound-replay';
