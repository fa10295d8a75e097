/*
 * The document-fetcher's tables in the shared state store (its own migration history,
 * document_fetcher_migration). A migration is never edited once released: a change is a new one.
 */
import { sql, type Kysely, type Migration } from 'kysely';

/** The tables as Kysely sees them. */
export interface RecordedTables {
  /** One row per record identity on partner-documents within the window (recorded-documents.ts). */
  recorded_documents: { topic: string; document_id: string; replay: number; seen_at: number };
  /** Per partner-documents partition, the offset below which every committed record's identity is in recorded_documents. */
  recorded_document_offsets: { topic: string; partition: number; applied: number };
}

const recordedDocuments: Migration = {
  async up(db: Kysely<unknown>) {
    // seen_at: the record's timestamp (epoch ms), what retention deletes by. Keyed by topic too
    // (TOPIC_PREFIX names it): the rows of another prefix's topic on the same database never count.
    await sql`
      create table recorded_documents (
        topic text not null,
        document_id text not null,
        replay integer not null,
        seen_at bigint not null,
        primary key (topic, document_id, replay)
      )`.execute(db);
    await sql`create index recorded_documents_seen_at on recorded_documents (seen_at)`.execute(db);
    await sql`
      create table recorded_document_offsets (
        topic text not null,
        partition integer not null,
        applied bigint not null,
        primary key (topic, partition)
      )`.execute(db);
  },
};

export const migrations: Record<string, Migration> = { '0001-recorded-documents': recordedDocuments };
