/*
 * The delivery log's schema, one versioned migration after another (Kysely's Migrator records
 * which ran in kysely_migration). A migration is
 * never edited once released: a change is a new one.
 *
 * Every table is keyed by what identifies its fact in the topics (a delivery id, a document id, a
 * record's partition and offset), so projecting a record twice writes the same row.
 */
import type { Migration } from 'kysely';
import { deliveryLog } from './0001-delivery-log';
import { operatorApi } from './0002-operator-api';
import { rejectedWebhooks } from './0003-rejected-webhooks';
import { attemptHeaders } from './0004-attempt-headers';
import { resendReservations } from './0005-resend-reservations';
import { webhookReplays } from './0006-webhook-replays';
import { deadLettersTime } from './0007-dead-letters-time';
import { issuedCredentials } from './0008-issued-credentials';
import { topicGenerations } from './0009-topic-generations';
import { partnerRowSecurity } from './0010-partner-row-security';
import { retryNow } from './0011-retry-now';
import { selfServiceChanges } from './0012-self-service-changes';
import { searchAndHealth } from './0013-search-and-health';
import { refusedRequests } from './0014-refused-requests';
import { retryNowClaims } from './0015-retry-now-claims';
import { partnerScopedWrites } from './0016-partner-scoped-writes';
import { traceIds } from './0017-trace-ids';
import { operationalNotifications } from './0018-operational-notifications';
import { deliveryTimeline } from './0019-delivery-timeline';

/** Every migration, by name; names sort in the order they run. */
export const migrations: Record<string, Migration> = {
  '0001-delivery-log': deliveryLog,
  '0002-operator-api': operatorApi,
  '0003-rejected-webhooks': rejectedWebhooks,
  '0004-attempt-headers': attemptHeaders,
  '0005-resend-reservations': resendReservations,
  '0006-webhook-replays': webhookReplays,
  '0007-dead-letters-time': deadLettersTime,
  '0008-issued-credentials': issuedCredentials,
  '0009-topic-generations': topicGenerations,
  '0010-partner-row-security': partnerRowSecurity,
  '0011-retry-now': retryNow,
  '0012-self-service-changes': selfServiceChanges,
  '0013-search-and-health': searchAndHealth,
  '0014-refused-requests': refusedRequests,
  '0015-retry-now-claims': retryNowClaims,
  '0016-partner-scoped-writes': partnerScopedWrites,
  '0017-trace-ids': traceIds,
  '0018-operational-notifications': operationalNotifications,
  '0019-delivery-timeline': deliveryTimeline,
};
