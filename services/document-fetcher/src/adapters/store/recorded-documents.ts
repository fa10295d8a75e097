/*
 * Which record identities (document id, replay) partner-documents holds, in the fetcher's table of
 * the shared PostgreSQL store (DATABASE_URL), so a replica's heap holds nothing that grows with
 * history: one row per document recorded within the window (a few hundred bytes with its
 * indexes), the same for every replica, kept across restarts. recorded_documents is fed from the topic itself
 * (entry/kafka/recorded-feed.ts), batch by batch with the partition's applied offset in the same
 * transaction, so per partition it holds exactly the identities of the committed records below its
 * applied offset (a prefix of the topic), plus those the recorder inserts after its own commits.
 * Why that keeps "no document recorded twice": docs/documents.md#guarantees.
 */
import { StoreUnavailableError } from '@hookstream/errors';
import { asStoreError, openStateStore, type Logger, type StateStore } from '@hookstream/runtime';
import { sql, type Kysely } from 'kysely';
import { migrations, type RecordedTables } from './migrations';

/** One record's identity: a document, and which replay of its dead letter (0: the first record). */
export interface RecordIdentity {
  documentId: string;
  replay: number;
}

/** The identity as one string (for sets). */
export function recordIdentity(documentId: string, replay: number): string {
  return `${documentId}#${replay}`;
}

export interface RecordedDocumentsOptions {
  /** postgres:// URL (DATABASE_URL). */
  url: string;
  /** Connections per replica (DATABASE_CONNECTIONS). */
  maxConnections: number;
  logger: Logger;
  /** The topics' namespace (TOPIC_PREFIX): the tables' schema in the store. */
  namespace: string;
  /** The partner-documents topic (its applied offsets are kept under its name). */
  topic: string;
}

export class RecordedDocuments {
  private store: StateStore<RecordedTables> | undefined;

  constructor(private readonly options: RecordedDocumentsOptions) {}

  /** Opens the pool and migrates (once); rejects while the store cannot be reached. */
  async open(): Promise<void> {
    if (this.store) return;
    const { url, namespace, maxConnections, logger } = this.options;
    this.store = await openStateStore<RecordedTables>({ url, namespace, maxConnections, service: 'document-fetcher', migrations, logger });
  }

  /** Resolves when the store answers (readiness). */
  async check(): Promise<void> {
    await this.db()
      .selectNoFrom(sql<number>`1`.as('one'))
      .execute();
  }

  async close(): Promise<void> {
    const store = this.store;
    this.store = undefined;
    await store?.close();
  }

  async has(documentId: string, replay: number): Promise<boolean> {
    return (await this.recordedAmong([{ documentId, replay }])).size > 0;
  }

  /** Which of `identities` are recorded, in one query (as recordIdentity strings). */
  async recordedAmong(identities: RecordIdentity[]): Promise<Set<string>> {
    if (identities.length === 0) return new Set();
    const rows = await this.run('read the recorded documents', (db) =>
      sql<{ document_id: string; replay: number }>`
        select document_id, replay from recorded_documents
        where topic = ${this.options.topic} and (document_id, replay) in (select * from unnest(${identities.map((i) => i.documentId)}::text[], ${identities.map((i) => i.replay)}::int[]))
      `.execute(db),
    );
    return new Set(rows.rows.map((row) => recordIdentity(row.document_id, row.replay)));
  }

  /** Notes identities this replica just committed (the feed inserts them again later: nothing happens). */
  async add(identities: RecordIdentity[], seenAt = Date.now()): Promise<void> {
    if (identities.length === 0) return;
    await this.run('note the recorded documents', (db) =>
      insertIdentities(
        db,
        this.options.topic,
        identities.map((i) => ({ ...i, seenAt })),
      ),
    );
  }

  /**
   * A batch of the feed: its identities and the partition's applied offset (the offset after its
   * last record) in one transaction. A batch never moves the applied offset back (one read again
   * after a rebalance writes the same rows); only resetApplied does.
   */
  async apply(partition: number, identities: Array<RecordIdentity & { seenAt: number }>, applied: bigint): Promise<void> {
    const { topic } = this.options;
    await this.run('apply a batch of partner-documents', (db) =>
      db.transaction().execute(async (tx) => {
        await insertIdentities(tx, topic, identities);
        await sql`
          insert into recorded_document_offsets (topic, partition, applied) values (${topic}, ${partition}, ${applied.toString()})
          on conflict (topic, partition) do update set applied = greatest(recorded_document_offsets.applied, excluded.applied)
        `.execute(tx);
      }),
    );
  }

  /**
   * Sets a partition's applied offset to `to`, even backwards: for a feed that finds it past the
   * partition's end (the topic was deleted and made again) and starts the partition over.
   */
  async resetApplied(partition: number, to: bigint): Promise<void> {
    const { topic } = this.options;
    await this.run('reset an applied offset', (db) =>
      sql`
        insert into recorded_document_offsets (topic, partition, applied) values (${topic}, ${partition}, ${to.toString()})
        on conflict (topic, partition) do update set applied = excluded.applied
      `.execute(db),
    );
  }

  /** Per partition of the topic, the offset below which every committed record is applied (none: nothing yet). */
  async appliedOffsets(): Promise<Map<number, bigint>> {
    const rows = await this.run('read the applied offsets', (db) =>
      db.selectFrom('recorded_document_offsets').select(['partition', 'applied']).where('topic', '=', this.options.topic).execute(),
    );
    return new Map(rows.map((row) => [row.partition, BigInt(row.applied)]));
  }

  /**
   * Deletes identities seen before `olderThan` (epoch ms), `batchSize` rows per statement so that
   * no statement holds many locks or runs long; returns how many were deleted.
   */
  async sweep(olderThan: number, batchSize = 5_000): Promise<number> {
    let deleted = 0;
    for (;;) {
      const result = await this.run('delete old recorded documents', (db) =>
        sql`
          delete from recorded_documents where ctid in (
            select ctid from recorded_documents where seen_at < ${olderThan} limit ${batchSize}
          )`.execute(db),
      );
      const count = Number(result.numAffectedRows ?? 0);
      deleted += count;
      if (count < batchSize) return deleted;
    }
  }

  private db(): Kysely<RecordedTables> {
    if (!this.store) throw new StoreUnavailableError('the store of recorded documents is not open');
    return this.store.db;
  }

  /** Runs a query; an error that means the store cannot answer now comes out as StoreUnavailableError. */
  private async run<T>(doing: string, query: (db: Kysely<RecordedTables>) => Promise<T>): Promise<T> {
    try {
      return await query(this.db());
    } catch (error) {
      throw asStoreError(error, doing);
    }
  }
}

/** Inserts identities, leaving those already there as they are. */
async function insertIdentities(
  db: Kysely<RecordedTables>,
  topic: string,
  identities: Array<RecordIdentity & { seenAt: number }>,
): Promise<void> {
  if (identities.length === 0) return;
  await sql`
    insert into recorded_documents (topic, document_id, replay, seen_at)
    select ${topic}::text, * from unnest(${identities.map((i) => i.documentId)}::text[], ${identities.map((i) => i.replay)}::int[], ${identities.map((i) => i.seenAt)}::bigint[])
    on conflict do nothing
  `.execute(db);
}
