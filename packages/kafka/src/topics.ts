/**
 * Every topic Hookstream uses, with the settings `hookstream topics ensure` creates and
 * checks (listed in docs/architecture.md). The single source of truth for names, schemas and settings:
 * services, the CLI and tests all read it.
 */

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Logical topic names; the real name is `TOPIC_PREFIX` + this. */
export const TopicNames = {
  partnerEvents: 'partner-events',
  inboundRejections: 'inbound-rejections',
  inboundReplays: 'inbound-replays',
  partnerDocuments: 'partner-documents',
  documentDlq: 'document-dlq',
  partnerConfig: 'partner-config',
  policyStatus: 'policy-status',
  policyStatusDlq: 'policy-status-dlq',
  callbackRequests: 'callback-requests',
  callbackOutcomes: 'callback-outcomes',
  callbackDlq: 'callback-dlq',
  dlqReplayAudit: 'dlq-replay-audit',
  operators: 'operators',
  adminAudit: 'admin-audit',
} as const;

/** Number of retry tiers of outbound callbacks (spec section 8: "up to 8"). */
export const RETRY_TIER_COUNT = 8;

/** Number of retry tiers of document retrievals (the document-fetcher's; docs/documents.md). */
export const DOCUMENT_RETRY_TIER_COUNT = 4;

/** Logical name of document retry tier `tier` (1-based). */
export function documentRetryTopicName(tier: number): string {
  if (!Number.isInteger(tier) || tier < 1 || tier > DOCUMENT_RETRY_TIER_COUNT) throw new RangeError(`no document retry tier ${tier}`);
  return `document-retry-${tier}`;
}

/** Logical name of retry tier `tier` (1-based). */
export function retryTopicName(tier: number): string {
  if (!Number.isInteger(tier) || tier < 1 || tier > RETRY_TIER_COUNT) throw new RangeError(`no retry tier ${tier}`);
  return `callback-retry-${tier}`;
}

export interface TopicSpec {
  /** Logical name (without prefix). */
  name: string;
  /** Avro schema file in schemas/ for the record value; the subject is `<topic>-value`. */
  schemaFile: string;
  /** What the topic carries, for `topics ensure` output and the README. */
  description: string;
  /** 'data' topics get TOPIC_PARTITIONS partitions; 'single' ones one (total order, tiny volume). */
  partitioning: 'data' | 'single';
  /** Topic-level configs Kafka must have (besides min.insync.replicas, derived from the replication factor). */
  config: Record<string, string>;
}

export interface TopicCatalogueSettings {
  /** Prepended to every name. Default ''. */
  prefix?: string;
  /** Partitions of 'data' topics. Default 6. */
  partitions?: number;
  /**
   * Replication factor of every topic; `min.insync.replicas` follows from it (2 from 3 replicas,
   * else 1). Default 1; `topics ensure` passes the cluster's (clusterReplicationFactor).
   */
  replicationFactor?: number;
}

export interface ResolvedTopic extends TopicSpec {
  /** Real name, with the prefix. */
  topic: string;
  partitions: number;
  replicationFactor: number;
}

const deleteAfter = (ms: number): Record<string, string> => ({ 'cleanup.policy': 'delete', 'retention.ms': String(ms) });

/** The wanted topics for the given settings. */
export function topicCatalogue(settings: TopicCatalogueSettings = {}): ResolvedTopic[] {
  const prefix = settings.prefix ?? '';
  const partitions = settings.partitions ?? 6;
  const replicationFactor = settings.replicationFactor ?? 1;

  const specs: TopicSpec[] = [
    {
      name: TopicNames.partnerEvents,
      schemaFile: 'partner-event.avsc',
      description: 'accepted inbound webhooks, keyed by transaction_number',
      partitioning: 'data',
      config: deleteAfter(7 * DAY_MS),
    },
    {
      name: TopicNames.inboundRejections,
      schemaFile: 'inbound-rejection.avsc',
      description: "authenticated partners' webhooks refused with 400 or 409 (what they were told), keyed by partner id",
      partitioning: 'data',
      // As long as the webhooks themselves: the delivery log keeps them longer for partners.
      config: deleteAfter(7 * DAY_MS),
    },
    {
      name: TopicNames.inboundReplays,
      schemaFile: 'inbound-replay.avsc',
      description:
        "authenticated partners' repeated webhooks answered from the idempotency ledger (200, not processed again), keyed by partner id",
      partitioning: 'data',
      config: deleteAfter(7 * DAY_MS),
    },
    {
      name: TopicNames.partnerDocuments,
      schemaFile: 'partner-document.avsc',
      description: 'what became of each document of an inbound webhook (stored, or failed and why), keyed by document id',
      partitioning: 'data',
      config: deleteAfter(7 * DAY_MS),
    },
    ...Array.from({ length: DOCUMENT_RETRY_TIER_COUNT }, (_, i): TopicSpec => ({
      name: documentRetryTopicName(i + 1),
      schemaFile: 'document-fetch-request.avsc',
      description: `document retrievals waiting for retry ${i + 1}`,
      partitioning: 'data',
      config: deleteAfter(7 * DAY_MS),
    })),
    {
      name: TopicNames.documentDlq,
      schemaFile: 'document-fetch-request.avsc',
      description: 'document retrievals that failed every retry, with the reasons in headers',
      partitioning: 'data',
      config: deleteAfter(30 * DAY_MS),
    },
    {
      name: TopicNames.partnerConfig,
      schemaFile: 'partner-config.avsc',
      description: 'partners, hashed API keys, callback endpoints, encrypted outbound auth; keyed by partner id',
      partitioning: 'single',
      config: { 'cleanup.policy': 'compact', 'delete.retention.ms': String(DAY_MS), 'min.compaction.lag.ms': '0' },
    },
    {
      name: TopicNames.policyStatus,
      schemaFile: 'policy-status-event.avsc',
      description: 'policy status changes from core insurance systems, keyed by policy_number',
      partitioning: 'data',
      config: deleteAfter(7 * DAY_MS),
    },
    {
      name: TopicNames.policyStatusDlq,
      schemaFile: 'policy-status-dead-letter.avsc',
      description: 'policy-status records the consumer could not process, with the reason',
      partitioning: 'data',
      config: deleteAfter(30 * DAY_MS),
    },
    {
      name: TopicNames.callbackRequests,
      schemaFile: 'callback-request.avsc',
      description: 'one delivery per partner endpoint, keyed by policy_number',
      partitioning: 'data',
      config: deleteAfter(7 * DAY_MS),
    },
    ...Array.from({ length: RETRY_TIER_COUNT }, (_, i): TopicSpec => ({
      name: retryTopicName(i + 1),
      schemaFile: 'callback-request.avsc',
      description: `deliveries waiting for retry ${i + 1}`,
      partitioning: 'data',
      // Longer than the longest tier delay plus an outage of several days.
      config: deleteAfter(7 * DAY_MS),
    })),
    {
      name: TopicNames.callbackDlq,
      schemaFile: 'callback-request.avsc',
      description: 'deliveries that failed every retry, with the reasons in headers',
      partitioning: 'data',
      config: deleteAfter(30 * DAY_MS),
    },
    {
      name: TopicNames.callbackOutcomes,
      schemaFile: 'callback-outcome.avsc',
      description: 'every delivery attempt and its outcome, keyed by policy_number',
      partitioning: 'data',
      config: deleteAfter(7 * DAY_MS),
    },
    {
      name: TopicNames.dlqReplayAudit,
      schemaFile: 'dlq-replay-audit.avsc',
      description: 'audit trail of DLQ replays by SREs',
      partitioning: 'single',
      config: deleteAfter(365 * DAY_MS),
    },
    {
      name: TopicNames.operators,
      schemaFile: 'operator.avsc',
      description: 'operators of the operator API, their roles and hashed tokens; keyed by operator id',
      partitioning: 'single',
      config: { 'cleanup.policy': 'compact', 'delete.retention.ms': String(DAY_MS), 'min.compaction.lag.ms': '0' },
    },
    {
      name: TopicNames.adminAudit,
      schemaFile: 'admin-audit.avsc',
      description: 'who changed what and why: partners, operators, portal tokens, replays; keyed by subject id',
      partitioning: 'single',
      config: deleteAfter(365 * DAY_MS),
    },
  ];

  const minInsyncReplicas = replicationFactor >= 3 ? 2 : 1;
  return specs.map((spec) => ({
    ...spec,
    config: { ...spec.config, 'min.insync.replicas': String(minInsyncReplicas) },
    topic: `${prefix}${spec.name}`,
    partitions: spec.partitioning === 'single' ? 1 : partitions,
    replicationFactor,
  }));
}

/** The real topic name of a logical one. */
export function topicName(logical: string, prefix = ''): string {
  return `${prefix}${logical}`;
}
