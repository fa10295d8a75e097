import { sql, type Kysely, type Migration } from 'kysely';

// What the operator's views ask across partners, each served by an index:
// - a policy number (deliveries) or transaction number (webhooks) by a case-insensitive prefix:
//   `lower(x) like 'p%'` uses a text_pattern_ops index whatever the database's collation; one index
//   with the partner first (the partner API, an operator's partner filter), one without (across partners);
// - the failing endpoints: a day of attempts by time across partners (the per-partner index starts
//   with the partner), and the deliveries still dead-lettered, a small part of the table (partial);
// - the audit trail by its actor, as an id or as the name the trail shows (partner:<id>).
export const searchAndHealth: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create index deliveries_policy_prefix on deliveries (lower(policy_number) text_pattern_ops)`.execute(db);
    await sql`create index deliveries_partner_policy_prefix on deliveries (partner_id, lower(policy_number) text_pattern_ops)`.execute(db);
    await sql`create index webhooks_transaction_prefix on webhooks (lower(transaction_number) text_pattern_ops)`.execute(db);
    await sql`create index webhooks_partner_transaction_prefix on webhooks (partner_id, lower(transaction_number) text_pattern_ops)`.execute(
      db,
    );
    await sql`create index delivery_attempts_time on delivery_attempts (recorded_at)`.execute(db);
    await sql`
      create index deliveries_dead_lettered on deliveries (partner_id, endpoint_id, dead_lettered_at)
      where state = 'dead_lettered'`.execute(db);
    await sql`create index audit_log_actor on audit_log (actor_id, at desc)`.execute(db);
    await sql`create index audit_log_actor_name on audit_log (actor_name, at desc)`.execute(db);
  },
};
