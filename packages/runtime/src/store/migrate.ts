/*
 * Migrations to the latest a replica knows, tolerant of a database a newer version already
 * migrated. Kysely's Migrator refuses to run when the database records a migration its list lacks
 * ("corrupted migrations"): during a rolling upgrade a replica of the version before that restarts
 * (a crash, a node drained) after the new version migrated, and every replica after a rollback,
 * would then fail to start, although every migration here is additive so that the version before
 * can run on the schema after. So the recorded names are read first: when the database holds all of
 * this version's migrations and more, there is nothing to run, and the replica starts on it.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import { describeError } from '@hookstream/errors';
import type { Logger } from '../logging';

export interface MigrateOptions {
  migrations: Record<string, Migration>;
  /** Kysely's history table; default its own (kysely_migration). */
  tableName?: string;
  /** Kysely's lock table; default its own (kysely_migration_lock). */
  lockTableName?: string;
  /** The schema of both tables; default the connection's search_path. */
  schema?: string;
  /** Names the store in errors and logs. */
  store: string;
  logger: Logger;
}

const DEFAULT_TABLE = 'kysely_migration';
/** SQLSTATE undefined_table: a new database, nothing migrated yet. */
const UNDEFINED_TABLE = '42P01';

/** Runs the migrations not yet applied; resolves at once on a database that a newer version migrated past them. */
export async function migrateToLatest(db: Kysely<unknown>, options: MigrateOptions): Promise<void> {
  const known = Object.keys(options.migrations);
  const recorded = await recordedMigrations(db, options);
  const newer = recorded.filter((name) => !known.includes(name));
  if (newer.length > 0) {
    const missing = known.filter((name) => !recorded.includes(name));
    if (missing.length > 0) {
      throw new Error(
        `${options.store}: the database was migrated by another version (${newer.join(', ')}) without ${missing.join(', ')}; ` +
          'run the newest version, which migrates it',
      );
    }
    options.logger.info({ store: options.store, newer }, 'the store was migrated by a newer version; this one runs on its schema');
    return;
  }
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(options.migrations) },
    ...(options.tableName ? { migrationTableName: options.tableName } : {}),
    ...(options.lockTableName ? { migrationLockTableName: options.lockTableName } : {}),
    // Named when given, not left to search_path: Kysely looks for its tables in every schema unless
    // told one, and would take another namespace's migration tables for this one's.
    ...(options.schema ? { migrationTableSchema: options.schema } : {}),
  });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'the migrations';
    throw new Error(`${options.store}: ${failed} failed: ${describeError(error)}`, { cause: error });
  }
}

/** The names the history table records; none when it does not exist yet. */
async function recordedMigrations(db: Kysely<unknown>, options: MigrateOptions): Promise<string[]> {
  const table = options.schema
    ? sql.table(`${options.schema}.${options.tableName ?? DEFAULT_TABLE}`)
    : sql.table(options.tableName ?? DEFAULT_TABLE);
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
    return rows.map((row) => row.name);
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return [];
    throw error;
  }
}
