/*
 * The delivery log's tables as Kysely sees them (store/migrations/ makes them). Times are
 * timestamptz (Date); bigint columns are read as numbers (database.ts).
 */
import type { PublicOutboundAuth } from '@hookstream/partners';
import type { ColumnType, Generated, Kysely } from 'kysely';
import type { RetryNowClaimsTable, RetryNowRequestsTable } from './retry-now-tables';
import type { NotificationStatesTable, NotificationSubscriptionsTable, NotificationsTable } from './notification-tables';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type BigintColumn = ColumnType<number, number | string, number | string>;
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

/** A send's request headers by name, as the sender recorded them (secret-bearing values "[redacted]"). */
export type RequestHeaders = Record<string, string>;

/** The callback endpoints a partner has, without their secrets. */
export interface EndpointSummary {
  endpoint_id: string;
  /** What the partner calls it; absent in rows projected before endpoints had names (until the partner's next change). */
  name?: string | null;
  url: string;
  statuses: string[];
  ordering: string;
}

/** The states of a delivery, from what its records say (delivery-summary.ts). */
export type DeliveryState = 'pending' | 'failing' | 'delivered' | 'dead_lettered' | 'superseded';
export const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'failing', 'delivered', 'dead_lettered', 'superseded'];

export interface PartnersTable {
  partner_id: string;
  name: string;
  status: string;
  revision: BigintColumn;
  updated_at: Timestamp;
  endpoints: Json<EndpointSummary[]>;
  outbound_auth_method: string | null;
  /** What of the outbound auth explains its signatures, no secret (publicOutboundAuth); null in rows projected before migration 0004. */
  outbound_auth_public: NullableJson<PublicOutboundAuth>;
}

export interface DeliveriesTable {
  delivery_id: string;
  partner_id: string;
  endpoint_id: string;
  event_id: string;
  policy_number: string;
  policy_version: BigintColumn;
  policy_status: string | null;
  body: string | null;
  created_at: Timestamp;
  state: DeliveryState;
  attempt_count: Generated<number>;
  last_attempt_at: Timestamp | null;
  last_http_status: number | null;
  last_error_class: string | null;
  dead_lettered_at: Timestamp | null;
  replay_count: Generated<number>;
  /** A test event's delivery (migration 0011). */
  test: Generated<boolean>;
  /** While failing: when its next attempt is due (migration 0011). */
  next_attempt_at: Timestamp | null;
  /** The sampled trace its record carried (migration 0017); null when not traced. */
  trace_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the core system published the policy status event it comes from (migration 0019); null when not known. */
  published_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface DeliveryAttemptsTable {
  /** The generation of its topic the record came from (projected_topics; 0 before migration 0009). */
  source_generation: Generated<number>;
  source_partition: number;
  source_offset: BigintColumn;
  delivery_id: string;
  /** Null in rows projected before migration 0002. */
  partner_id: string | null;
  endpoint_id: string | null;
  attempt: number;
  outcome: string;
  http_status: number | null;
  error_class: string | null;
  latency_ms: number | null;
  tier: number;
  response_excerpt: string | null;
  /** Null for outcomes that made no request, and in rows projected before migration 0004. */
  request_headers: NullableJson<RequestHeaders>;
  recorded_at: Timestamp;
  /** The request's trigger: RETRY_NOW, TEST; null for a policy status change's (and before migration 0011). */
  trigger: ColumnType<string | null, string | null | undefined, string | null>;
  /** The retry's due time of a FAILED_ATTEMPT or SKIPPED_CIRCUIT_OPEN that went to a tier (migration 0011). */
  next_attempt_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The sampled trace its record carried (migration 0017); null when not traced. */
  trace_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface DeadLettersTable {
  source_topic: string;
  /** The generation of its topic the record came from (projected_topics; 0 before migration 0009). */
  source_generation: Generated<number>;
  source_partition: number;
  source_offset: BigintColumn;
  subject_id: string | null;
  partner_id: string | null;
  attempts: number | null;
  error_class: string | null;
  reason: string | null;
  dead_lettered_at: Timestamp;
}

export interface ReplaysTable {
  replay_id: string;
  source_topic: string;
  source_partition: number;
  source_offset: BigintColumn;
  subject_id: string;
  operator: string;
  /** cli, operator or partner (the dlq-replay-audit record's actor_type). */
  actor_type: string;
  actor_id: string;
  reason: string;
  outcome: string;
  detail: string;
  replay_count: number;
  replayed_at: Timestamp;
}

export interface WebhooksTable {
  webhook_id: string;
  partner_id: string;
  request_id: string | null;
  transaction_number: string;
  transaction_type: string;
  status: string;
  payload_fingerprint: string;
  received_at: Timestamp;
  /** The sampled trace its record carried (migration 0017); null when not traced. */
  trace_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A known partner's webhook the ingress answered from its ledger (a replay), as recorded on inbound-replays (keyed by that record). */
export interface WebhookReplaysTable {
  /** The generation of its topic the record came from (projected_topics; 0 before migration 0009). */
  source_generation: Generated<number>;
  source_partition: number;
  source_offset: BigintColumn;
  replay_id: string;
  webhook_id: string;
  partner_id: string;
  received_at: Timestamp;
}

export interface DocumentsTable {
  document_id: string;
  webhook_id: string | null;
  partner_id: string;
  document_index: number;
  document_type: string;
  source_url: string;
  filename: string | null;
  outcome: string;
  storage_uri: string | null;
  content_type: string | null;
  size_bytes: BigintColumn | null;
  sha256: string | null;
  error: string | null;
  failure_reason: string | null;
  http_status: number | null;
  attempts: number;
  replay: number;
  fetched_at: Timestamp | null;
}

export interface AuditLogTable {
  audit_id: string;
  at: Timestamp;
  actor_type: string;
  actor_id: string;
  actor_name: string;
  action: string;
  subject_type: string;
  subject_id: string;
  reason: string;
  detail: Json<Record<string, unknown>>;
}

/** A known partner's webhook the ingress refused (400, 409), as recorded on inbound-rejections (keyed by that record). */
export interface RejectedWebhooksTable {
  /** The generation of its topic the record came from (projected_topics; 0 before migration 0009). */
  source_generation: Generated<number>;
  source_partition: number;
  source_offset: BigintColumn;
  rejection_id: string;
  partner_id: string;
  received_at: Timestamp;
  http_status: number;
  error_code: string;
  message: string;
  fields: Json<string[]>;
  request_id: string | null;
  transaction_number: string | null;
  payload_fingerprint: string | null;
  /** Each field at fault with its message (null before migration 0014). */
  problems: NullableJson<{ field: string; message: string }[]>;
  /** The headers as received, credentials "[redacted]" (null before migration 0014). */
  request_headers: NullableJson<{ name: string; value: string }[]>;
  headers_truncated: Generated<boolean>;
  /** The body's first 16 KiB as UTF-8 text (null before migration 0014 or when none was read). */
  body: string | null;
  body_size: ColumnType<number | null, number | null, number | null>;
  body_truncated: Generated<boolean>;
}

/** A resend the partner API accepted, held for the hour the limit counts it in (resend-reservations.ts); the API's own, not projected. */
export interface ResendReservationsTable {
  reservation_id: string;
  partner_id: string;
  delivery_id: string;
  reserved_at: Timestamp;
  /** Which limit it counts in: resend (resends and retries now, by the hour) or test-event (by the minute); migration 0011. */
  kind: Generated<string>;
}

/** A partner's own change the API accepted, counted by the self-service limits (self-service-limits.ts); the API's own, not projected. */
export interface SelfServiceChangesTable {
  change_id: string;
  partner_id: string;
  kind: string;
  reserved_at: Timestamp;
}

/** A console session or portal link the API signed (issued-credentials.ts); the API's own, not projected. */
export interface IssuedCredentialsTable {
  credential_id: string;
  kind: 'console_session' | 'portal_link';
  /** The partner it opens; null for an operator's session. */
  partner_id: string | null;
  /** The operator whose session it is, or who issued the portal link; null for a partner's session. */
  operator_id: string | null;
  /** The portal link a partner's session was opened with. */
  portal_link_id: string | null;
  issued_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  revoked_by: string | null;
  revoke_reason: string | null;
}

/** Each projected topic's Kafka topic id, and its generation: bumped when the topic was created again. */
export interface ProjectedTopicsTable {
  /** The topic's logical name (without TOPIC_PREFIX). */
  topic: string;
  topic_id: string;
  generation: number;
  seen_at: Timestamp;
}

export interface DeliveryLogTables {
  partners: PartnersTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  dead_letters: DeadLettersTable;
  replays: ReplaysTable;
  webhooks: WebhooksTable;
  documents: DocumentsTable;
  audit_log: AuditLogTable;
  rejected_webhooks: RejectedWebhooksTable;
  webhook_replays: WebhookReplaysTable;
  resend_reservations: ResendReservationsTable;
  retry_now_claims: RetryNowClaimsTable;
  retry_now_requests: RetryNowRequestsTable;
  self_service_changes: SelfServiceChangesTable;
  issued_credentials: IssuedCredentialsTable;
  projected_topics: ProjectedTopicsTable;
  notification_subscriptions: NotificationSubscriptionsTable;
  notification_states: NotificationStatesTable;
  notifications: NotificationsTable;
}

/** The delivery log's database as Kysely sees it. */
export type DeliveryLogDb = Kysely<DeliveryLogTables>;
