import type { DeliveryLogDb } from '../../src/adapters/store/tables';
import type { DeliveryLogTables } from '../../src/adapters/store/tables';

/**
 * The projection's tables: what a rebuild from the topics must write again. Not resend_reservations,
 * retry_now_claims, self_service_changes nor issued_credentials: the partner API's own state (its
 * resends, retries now in flight and self-service changes of the last hour or day, the sessions and
 * portal links it signed, the notification subscriptions and notifications), which no topic holds; nor projected_topics, which says when each topic
 * was first seen.
 */
type ProjectedTable = Exclude<
  keyof DeliveryLogTables,
  | 'resend_reservations'
  | 'retry_now_claims'
  | 'self_service_changes'
  | 'issued_credentials'
  | 'projected_topics'
  | 'notification_subscriptions'
  | 'notification_states'
  | 'notifications'
>;

const ORDER: Record<ProjectedTable, string[]> = {
  partners: ['partner_id'],
  deliveries: ['delivery_id'],
  delivery_attempts: ['source_generation', 'source_partition', 'source_offset'],
  dead_letters: ['source_topic', 'source_generation', 'source_partition', 'source_offset'],
  replays: ['replay_id', 'source_topic', 'source_partition', 'source_offset'],
  webhooks: ['webhook_id'],
  documents: ['document_id'],
  audit_log: ['audit_id'],
  rejected_webhooks: ['source_generation', 'source_partition', 'source_offset'],
  webhook_replays: ['source_generation', 'source_partition', 'source_offset'],
  retry_now_requests: ['delivery_id', 'asked_at'],
};

/** Every row of every projected table in key order, with times as ISO text: comparable across stores and runs. */
export async function tableRows(db: DeliveryLogDb): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const [table, keys] of Object.entries(ORDER) as Array<[ProjectedTable, string[]]>) {
    let query = db.selectFrom(table).selectAll();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the key columns differ per table
    for (const key of keys) query = query.orderBy(key as any);
    const rows = (await query.execute()) as Array<Record<string, unknown>>;
    all[table] = rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([column, value]) => [column, value instanceof Date ? value.toISOString() : value])),
    );
  }
  return all;
}
