import { sql, type Kysely, type Migration } from 'kysely';

// A refused webhook opens to its request as it arrived: each field at fault with its message, the
// headers (credentials already "[redacted]" by the ingress) and the body's first 16 KiB. Null or
// false in rows projected before this.
export const refusedRequests: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      alter table rejected_webhooks
        add column problems jsonb,
        add column request_headers jsonb,
        add column headers_truncated boolean not null default false,
        add column body text,
        add column body_size bigint,
        add column body_truncated boolean not null default false`.execute(db);
  },
};
