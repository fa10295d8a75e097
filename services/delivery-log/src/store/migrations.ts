/*
 * The delivery log's schema, one versioned migration after another (Kysely's Migrator records
 * which ran in kysely_migration). The same SQL runs on PostgreSQL and on PGlite. A migration is
 * never edited once released: a change is a new one.
 *
 * Every table is keyed by what identifies its fact in the topics (a delivery id, a document id, a
 * record's partition and offset), so projecting a record twice writes the same row.
 */
import { sql, type Kysely, type Migration } from 'kysely';

const deliveryLog: Migration = {
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

// Who changed what and why: one row per admin-audit record, and one per replay run (its id), so
// that one trail lists every change and every replay, whoever made it. Replays learn their actor.
const operatorApi: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table audit_log (
        audit_id text primary key,
        at timestamptz not null,
        actor_type text not null,
        actor_id text not null,
        actor_name text not null,
        action text not null,
        subject_type text not null,
        subject_id text not null,
        reason text not null,
        detail jsonb not null
      )`.execute(db);
    await sql`create index audit_log_newest on audit_log (at desc, audit_id desc)`.execute(db);
    await sql`create index audit_log_subject on audit_log (subject_id, at desc)`.execute(db);
    await sql`alter table replays add column actor_type text not null default 'cli', add column actor_id text not null default ''`.execute(
      db,
    );
    await sql`create index replays_actor on replays (actor_type, actor_id, replayed_at)`.execute(db);

    // An endpoint's health (success rate, p95 latency over the last hour and day) reads its
    // attempts by time without going through deliveries. Null in rows projected before this.
    await sql`alter table delivery_attempts add column partner_id text, add column endpoint_id text`.execute(db);
    await sql`create index delivery_attempts_partner_time on delivery_attempts (partner_id, recorded_at)`.execute(db);
  },
};

const rejectedWebhooks: Migration = {
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

// How a partner can check its callbacks: the headers each send carried (secret-bearing values are
// "[redacted]" by the sender before they reach a topic), and the public part of the partner's
// outbound auth (header names, the MD5 contract, the JWT's algorithm and issuer; never a secret or
// its ciphertext). Null in rows projected before this, and for outcomes that made no request.
const attemptHeaders: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table delivery_attempts add column request_headers jsonb`.execute(db);
    await sql`alter table partners add column outbound_auth_public jsonb`.execute(db);
  },
};

/** Every migration, by name; names sort in the order they run. */
export const migrations: Record<string, Migration> = {
  '0001-delivery-log': deliveryLog,
  '0002-operator-api': operatorApi,
  '0003-rejected-webhooks': rejectedWebhooks,
  '0004-attempt-headers': attemptHeaders,
};
