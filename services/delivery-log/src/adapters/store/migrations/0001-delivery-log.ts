import { sql, type Kysely, type Migration } from 'kysely';

export const deliveryLog: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table partners (
        partner_id text primary key,
        name text not null,
        status text not null,
        revision bigint not null,
        updated_at timestamptz not null,
        -- Endpoints without secrets: id, url, statuses, ordering.
        endpoints jsonb not null,
        -- The outbound auth method's name only (API_KEY, HMAC_SHA256…); never its secret.
        outbound_auth_method text
      )`.execute(db);

    // One row per delivery (a policy event to one partner endpoint), made by whichever of its
    // records is read first; state and the last_* columns are recomputed from its attempts and
    // replays after every batch (delivery-summary.ts), so the order records are read in is moot.
    await sql`
      create table deliveries (
        delivery_id text primary key,
        partner_id text not null,
        endpoint_id text not null,
        event_id text not null,
        policy_number text not null,
        policy_version bigint not null,
        policy_status text,
        body text,
        created_at timestamptz not null,
        state text not null,
        attempt_count integer not null default 0,
        last_attempt_at timestamptz,
        last_http_status integer,
        last_error_class text,
        dead_lettered_at timestamptz,
        replay_count integer not null default 0
      )`.execute(db);
    await sql`create index deliveries_partner_time on deliveries (partner_id, created_at desc, delivery_id desc)`.execute(db);
    await sql`create index deliveries_partner_policy on deliveries (partner_id, policy_number, created_at desc)`.execute(db);
    await sql`create index deliveries_partner_state on deliveries (partner_id, state, created_at desc)`.execute(db);
    await sql`create index deliveries_time on deliveries (created_at desc, delivery_id desc)`.execute(db);

    // Every attempt, as the callback-sender recorded it on callback-outcomes (keyed by that record).
    await sql`
      create table delivery_attempts (
        source_partition integer not null,
        source_offset bigint not null,
        delivery_id text not null,
        attempt integer not null,
        outcome text not null,
        http_status integer,
        error_class text,
        latency_ms double precision,
        tier integer not null,
        response_excerpt text,
        recorded_at timestamptz not null,
        primary key (source_partition, source_offset)
      )`.execute(db);
    await sql`create index delivery_attempts_delivery on delivery_attempts (delivery_id, recorded_at)`.execute(db);

    // Records of the dead-letter topics (callback-dlq, document-dlq, policy-status-dlq).
    await sql`
      create table dead_letters (
        source_topic text not null,
        source_partition integer not null,
        source_offset bigint not null,
        subject_id text,
        partner_id text,
        attempts integer,
        error_class text,
        reason text,
        dead_lettered_at timestamptz not null,
        primary key (source_topic, source_partition, source_offset)
      )`.execute(db);
    await sql`create index dead_letters_subject on dead_letters (subject_id)`.execute(db);

    // What each replay (hookstream dlq replay, a resend) decided for each dead letter it read.
    await sql`
      create table replays (
        replay_id text not null,
        source_topic text not null,
        source_partition integer not null,
        source_offset bigint not null,
        subject_id text not null,
        operator text not null,
        reason text not null,
        outcome text not null,
        detail text not null,
        replay_count integer not null,
        replayed_at timestamptz not null,
        primary key (replay_id, source_topic, source_partition, source_offset)
      )`.execute(db);
    await sql`create index replays_subject on replays (subject_id, replayed_at)`.execute(db);

    // Inbound webhooks, identified as their documents are (documentIdOf without the index).
    await sql`
      create table webhooks (
        webhook_id text primary key,
        partner_id text not null,
        request_id text,
        transaction_number text not null,
        transaction_type text not null,
        status text not null,
        payload_fingerprint text not null,
        received_at timestamptz not null
      )`.execute(db);
    await sql`create index webhooks_partner_time on webhooks (partner_id, received_at desc, webhook_id desc)`.execute(db);
    await sql`create index webhooks_partner_transaction on webhooks (partner_id, transaction_number, received_at desc)`.execute(db);
    await sql`create index webhooks_time on webhooks (received_at desc, webhook_id desc)`.execute(db);

    // Each document of a webhook: PENDING from the webhook until partner-documents says what became of it.
    await sql`
      create table documents (
        document_id text primary key,
        webhook_id text,
        partner_id text not null,
        document_index integer not null,
        document_type text not null,
        source_url text not null,
        filename text,
        outcome text not null,
        storage_uri text,
        content_type text,
        size_bytes bigint,
        sha256 text,
        error text,
        failure_reason text,
        http_status integer,
        attempts integer not null,
        replay integer not null,
        fetched_at timestamptz
      )`.execute(db);
    await sql`create index documents_webhook on documents (webhook_id, document_index)`.execute(db);
  },
};
