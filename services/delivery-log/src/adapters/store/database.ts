/*
 * Opens the delivery log's PostgreSQL database (DELIVERY_LOG_DATABASE_URL: production,
 * docker-compose, and the local stack's server under `npm start`) and brings its schema up to date.
 */
import { describeError } from '@hookstream/errors';
import { Kysely, Migrator, PostgresDialect, type MigrationResultSet } from 'kysely';
import { Pool, types as pgTypes } from 'pg';
import { migrations } from './migrations/index';
import { WithoutNulPlugin } from './without-nul';
import type { DeliveryLogDb, DeliveryLogTables } from './tables';

export interface StoreLocation {
  /** postgres:// URL of the log's database. */
  url: string;
  maxConnections?: number;
  /**
   * Told when an idle connection fails (the server restarted, the network dropped): the pool
   * replaces it at the next query. Without a listener the pool's error would end the process.
   */
  onIdleConnectionError?: (error: Error) => void;
}

export interface DeliveryLogStore {
  readonly db: DeliveryLogDb;
  close(): Promise<void>;
}

/** Opens the store and runs every migration not yet applied; rejects naming the one that failed. */
export async function openStore(location: StoreLocation): Promise<DeliveryLogStore> {
  const db = new Kysely<DeliveryLogTables>({ dialect: dialectOf(location), plugins: [new WithoutNulPlugin()] });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, close: () => db.destroy() };
}

/** PostgreSQL's bigint (int8) type. */
const INT8 = 20;
/**
 * bigint columns (offsets, versions, sizes) as JavaScript numbers: every such value is an Avro
 * long that this code already holds as a number (below 2^53).
 */
const int8AsNumber = (text: string) => Number(text);

function dialectOf(location: StoreLocation) {
  const parserOf = (oid: number, format?: string) => pgTypes.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  const types = { getTypeParser: (oid: number, format?: string) => (oid === INT8 ? int8AsNumber : parserOf(oid, format)) };
  const pool = new Pool({ connectionString: location.url, max: location.maxConnections ?? 10, types });
  pool.on('error', (error) => location.onIdleConnectionError?.(error));
  return new PostgresDialect({ pool });
}

async function migrateToLatest(db: Kysely<DeliveryLogTables>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'the migrations';
    throw new Error(`delivery log: ${failed} failed: ${describeError(error)}`, { cause: error });
  }
}
