/*
 * The PostgreSQL store of a service's state that must not live in a replica's heap (the ingress's
 * idempotency claims, the sender's emitted policy versions, the fetcher's recorded documents): one
 * server and database (DATABASE_URL) shared by every replica of every such service, each service
 * owning its own tables and its own migration history (`<service>_migration`), so services migrate
 * independently and never touch each other's tables. Each TOPIC_PREFIX (a namespace of topics: a
 * deployment, a test, a bench) keeps its state in a PostgreSQL schema of its own (stateSchemaOf), so
 * namespaces that share a database never see each other's request_ids, versions or documents.
 */
import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect, type Migration } from 'kysely';
import type { Pool } from 'pg';
import { StoreUnavailableError, describeError } from '@hookstream/errors';
import type { Logger } from '../logging';
import { migrateToLatest } from './migrate';
import { openPostgresPool } from './postgres-pool';

export interface StateStoreOptions {
  /** postgres:// URL (DATABASE_URL). */
  url: string;
  /** The owning service: names its migration tables. */
  service: string;
  migrations: Record<string, Migration>;
  /** The topics' namespace (TOPIC_PREFIX): its state lives in schema stateSchemaOf(namespace). Default "" (public). */
  namespace?: string;
  /** Connections per replica. Default 10. */
  maxConnections?: number;
  /** A query waits this long for a connection before it fails as unavailable. Default 5,000 ms. */
  connectTimeoutMs?: number;
  logger: Logger;
}

export interface StateStore<Tables> {
  readonly db: Kysely<Tables>;
  /** Resolves when the server answers a query (readiness). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The PostgreSQL schema of a topic namespace's state: `public` for no prefix, else `state_` and the
 * prefix folded to lower-case letters, digits and "_", with a hash of the prefix itself so two
 * prefixes that fold alike ("a.b", "a-b") never share a schema; at most 63 characters (PostgreSQL's).
 */
export function stateSchemaOf(namespace: string): string {
  if (namespace === '') return 'public';
  const folded = namespace
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 44);
  return `state_${folded}_${createHash('sha256').update(namespace).digest('hex').slice(0, 12)}`;
}

/** Opens the pool and runs the service's migrations not yet applied; rejects naming the one that failed. */
export async function openStateStore<Tables>(options: StateStoreOptions): Promise<StateStore<Tables>> {
  // Every connection's unqualified names resolve in the namespace's schema, so the services' SQL
  // names its tables plainly.
  const schema = stateSchemaOf(options.namespace ?? '');
  const pool = openPostgresPool({
    url: options.url,
    startupOptions: `-c search_path=${schema}`,
    maxConnections: options.maxConnections,
    connectTimeoutMs: options.connectTimeoutMs,
    logger: options.logger,
  });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  try {
    await createSchema(pool, schema);
    await migrateToLatest(db as Kysely<unknown>, {
      migrations: options.migrations,
      tableName: `${options.service.replace(/-/g, '_')}_migration`,
      lockTableName: `${options.service.replace(/-/g, '_')}_migration_lock`,
      schema,
      store: options.service,
      logger: options.logger,
    });
  } catch (error) {
    await db.destroy();
    throw new StoreUnavailableError(`${options.service}: the store could not be migrated: ${describeError(error)}`, error);
  }
  return {
    db,
    check: async () => {
      await pool.query('select 1');
    },
    close: () => db.destroy(),
  };
}

/**
 * SQLSTATE classes that mean "the store cannot answer now" rather than "this query is wrong":
 * 08 connection exception, 53 insufficient resources, 57 operator intervention (a restart),
 * 58 system error, 40 transaction rollback (serialization failure, deadlock: try again).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58', '40']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/**
 * Whether `error`, thrown by a store query, means the store is unavailable (retry later) rather than a
 * fault of ours. An error that wraps another (`cause`) is judged by every error of its chain.
 */
export function isStoreUnavailable(error: unknown): boolean {
  // Not `instanceof Error`: a driver's errors may come from another realm (a VM context under Jest).
  let e = error as { code?: unknown; message?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof StoreUnavailableError || meansUnavailable(e.code, e.message)) return true;
  }
  return false;
}

function meansUnavailable(code: unknown, message: unknown): boolean {
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_CLASSES.has(code.slice(0, 2))) return true;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  // pg's own words when no connection could be had, one ended under a query, or a query got no
  // answer within query_timeout (a server that stopped answering without closing the connection).
  return (
    typeof message === 'string' &&
    /timeout exceeded when trying to connect|Connection terminated|connection is closed|Client has encountered a connection error|Query read timeout/i.test(
      message,
    )
  );
}

/** `error` as StoreUnavailableError when it means the store is unavailable, else `error` itself. */
export function asStoreError(error: unknown, doing: string): unknown {
  return isStoreUnavailable(error) && !(error instanceof StoreUnavailableError)
    ? new StoreUnavailableError(`the store could not ${doing}: ${describeError(error)}`, error)
    : error;
}

/** Creates `schema` if missing; replicas starting together may race, and the loser's error only says it exists. */
async function createSchema(pool: Pool, schema: string): Promise<void> {
  try {
    await pool.query(`create schema if not exists "${schema}"`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // 23505: the catalogue's unique index (concurrent creation); 42P06: duplicate schema.
    if (code !== '23505' && code !== '42P06') throw error;
  }
}
