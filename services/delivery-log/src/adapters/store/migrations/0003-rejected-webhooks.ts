import { sql, type Kysely, type Migration } from 'kysely';

export const rejectedWebhooks: Migration = {
  async up(db: Kysely<unknown>) {
    // Known partners' webhooks the ingress refused (inbound-rejections, keyed by that record), so a
    // partner can see why: newest first per partner, by request_id, and by age for retention.
    await sql`
      create table rejected_webhooks (
        source_partition integer not null,
        source_offset bigint not null,
        rejection_id text not null,
        partner_id text not null,
        received_at timestamptz not null,
        http_status integer not null,
        error_code text not null,
        message text not null,
        -- Paths of the fields the answer named, a JSON array of strings.
        fields jsonb not null,
        request_id text,
        transaction_number text,
        payload_fingerprint text,
        primary key (source_partition, source_offset)
      )`.execute(db);
    await sql`create index rejected_webhooks_partner_time on rejected_webhooks (partner_id, received_at desc, rejection_id desc)`.execute(
      db,
    );
    await sql`create index rejected_webhooks_partner_request on rejected_webhooks (partner_id, request_id, received_at desc)`.execute(db);
    await sql`create index rejected_webhooks_time on rejected_webhooks (received_at)`.execute(db);
  },
};
