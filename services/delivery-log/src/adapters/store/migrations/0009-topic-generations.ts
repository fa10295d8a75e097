import { sql, type Kysely, type Migration } from 'kysely';

/** The tables whose rows are keyed by the position of the record that stated them. */
const POSITION_KEYED: Array<{ table: string; key: string }> = [
  { table: 'delivery_attempts', key: 'source_generation, source_partition, source_offset' },
  { table: 'dead_letters', key: 'source_topic, source_generation, source_partition, source_offset' },
  { table: 'rejected_webhooks', key: 'source_generation, source_partition, source_offset' },
  { table: 'webhook_replays', key: 'source_generation, source_partition, source_offset' },
];

// A topic deleted and created again (a wiped stack, a topic recreated in production) starts its
// offsets at 0, and its records would land on the positions of the old topic's rows and be skipped
// as already projected. Each projected topic's Kafka topic id (KIP-516) is recorded with a
// generation, bumped when the id changes (projection/topic-generations.ts); position-keyed rows carry
// the generation of the topic they came from, so the new topic's records are new rows and the old
// ones stay as history. Rows projected before this migration are generation 0.
export const topicGenerations: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table projected_topics (
        topic text primary key,
        topic_id text not null,
        generation integer not null,
        seen_at timestamptz not null
      )`.execute(db);
    for (const { table, key } of POSITION_KEYED) {
      await sql`alter table ${sql.table(table)} add column source_generation integer not null default 0`.execute(db);
      await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_pkey`)}`.execute(db);
      await sql`alter table ${sql.table(table)} add primary key (${sql.raw(key)})`.execute(db);
    }
  },
};
