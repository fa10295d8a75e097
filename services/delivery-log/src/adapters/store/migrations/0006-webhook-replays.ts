import { sql, type Kysely, type Migration } from 'kysely';

// Known partners' webhooks the ingress answered from its idempotency ledger (inbound-replays, keyed
// by that record), so a partner can see its retries were recognised and not processed twice: by
// webhook (its id computed as partner-events' is, from the same four fields), and by age for retention.
export const webhookReplays: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table webhook_replays (
        source_partition integer not null,
        source_offset bigint not null,
        replay_id text not null,
        webhook_id text not null,
        partner_id text not null,
        received_at timestamptz not null,
        primary key (source_partition, source_offset)
      )`.execute(db);
    await sql`create index webhook_replays_webhook on webhook_replays (webhook_id, received_at desc)`.execute(db);
    await sql`create index webhook_replays_time on webhook_replays (received_at)`.execute(db);
  },
};
