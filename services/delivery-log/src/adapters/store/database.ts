/*
 * Opens the delivery log's PostgreSQL database (DELIVERY_LOG_DATABASE_URL: production,
 * docker-compose, and the local stack's server under `npm start`) and brings its schema up to date.
 */
import { migrateToLatest, openPostgresPool, type Logger } from '@hookstream/runtime';
import { Kysely, PostgresDialect } from 'kysely';
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
    await migrateToLatest(db as Kysely<unknown>, { migrations, store: 'delivery log', logger: location.logger });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, close: () => db.destroy() };
}
