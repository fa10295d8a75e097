/*
 * Opens the delivery log's PostgreSQL database (DELIVERY_LOG_DATABASE_URL: production,
 * docker-compose, and the local stack's server under `npm start`) and brings its schema up to date.
 */
import { describeError } from '@hookstream/errors';
import { openPostgresPool, type Logger } from '@hookstream/runtime';
import { Kysely, Migrator, PostgresDialect, type MigrationResultSet } from 'kysely';
import { migrations } from './migrations/index';
import { WithoutNulPlugin } from './without-nul';
import type { DeliveryLogDb, DeliveryLogTables } from './tables';

export interface StoreLocation {
  /** postgres:// URL of the log's database. */
  url: string;
  /** Connections of this replica. Default 10. */
  maxConnections?: number;
  /** A query waits this long for a connection before it fails as unavailable (503 to an API caller). Default 5,000 ms. */
  connectTimeoutMs?: number;
  /** The server cancels a statement running longer; the client gives up 5 s later (a server that stopped answering). Default 30,000 ms. */
  statementTimeoutMs?: number;
  /** Told of a connection that failed (the server restarted, the network dropped); the pool replaces it. */
  logger: Logger;
}

export interface DeliveryLogStore {
  readonly db: DeliveryLogDb;
  close(): Promise<void>;
}

/** Opens the store and runs every migration not yet applied; rejects naming the one that failed. */
export async function openStore(location: StoreLocation): Promise<DeliveryLogStore> {
  // The runtime's pool: bounded waits for a connection and a statement, so a hung server answers
  // partners and operators 503 and fails a projection batch (tried again) instead of holding them.
  const pool = openPostgresPool(location);
  const db = new Kysely<DeliveryLogTables>({ dialect: new PostgresDialect({ pool }), plugins: [new WithoutNulPlugin()] });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, close: () => db.destroy() };
}

async function migrateToLatest(db: Kysely<DeliveryLogTables>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'the migrations';
    throw new Error(`delivery log: ${failed} failed: ${describeError(error)}`, { cause: error });
  }
}
