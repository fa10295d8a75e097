import { sql, type Kysely, type Migration } from 'kysely';

// The trace each record belongs to (docs/tracing.md), so that an SRE goes from a delivery, one of
// its attempts or a webhook to its whole trace: the trace id its record's traceparent header
// carried when that trace was sampled, else null (tracing off, not sampled, or projected before
// this migration). Columns added with no default: no table is rewritten.
export const traceIds: Migration = {
  async up(db: Kysely<unknown>) {
    for (const table of ['deliveries', 'delivery_attempts', 'webhooks']) {
      await sql`alter table ${sql.table(table)} add column if not exists trace_id text`.execute(db);
    }
  },
};
