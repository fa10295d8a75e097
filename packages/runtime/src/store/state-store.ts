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
import { Kysely, Migrator, PostgresDialect, type Migration, type MigrationResultSet } from 'kysely';
import { Pool, types as pgTypes } from 'pg';
import { StoreUnavailableError, describeError } from '@hookstream/errors';
import type { Logger } from '../logging';

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

/** PostgreSQL's bigint (int8): as JavaScript numbers, since every such value here (times, versions, offsets) is below 2^53. */
const INT8 = 20;

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

/**
 * `url` without its `options` parameter, and that parameter. Only the query string is touched:
 * pg accepts URLs that Node's URL parser refuses (a Unix socket without a host, a raw % in a
 * password), and those parts are passed on as they were.
 */
export function withoutStartupOptions(url: string): { url: string; startupOptions?: string } {
  const at = url.indexOf('?');
  if (at < 0) return { url };
  const params = new URLSearchParams(url.slice(at + 1));
  const startupOptions = params.get('options');
  if (startupOptions === null) return { url };
  params.delete('options');
  const rest = params.toString();
  return { url: `${url.slice(0, at)}${rest ? `?${rest}` : ''}`, startupOptions };
}

/** Opens the pool and runs the service's migrations not yet applied; rejects naming the one that failed. */
export async function openStateStore<Tables>(options: StateStoreOptions): Promise<StateStore<Tables>> {
  const parserOf = (oid: number, format?: string) => pgTypes.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  // Every connection's unqualified names resolve in the namespace's schema, so the services' SQL
  // names its tables plainly: a startup option, added to the URL's own `options` (which would
  // otherwise replace it). Not a statement on connect, which races the connection's first query.
  const schema = stateSchemaOf(options.namespace ?? '');
  const { url, startupOptions } = withoutStartupOptions(options.url);
  const pool = new Pool({
    connectionString: url,
    options: [startupOptions, `-c search_path=${schema}`].filter(Boolean).join(' '),
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    // A query never hangs on a half-open connection or a stuck server: it fails (as unavailable) and
    // its work is tried again, where waiting would hold a partition or a webhook indefinitely.
    keepAlive: true,
    statement_timeout: 30_000,
    query_timeout: 35_000,
    types: { getTypeParser: (oid: number, format?: string) => (oid === INT8 ? Number : parserOf(oid, format)) },
  });
  // An idle connection that fails (the server restarted) is replaced at the next query; without a
  // listener the pool's error would end the process.
  pool.on('error', (error) => options.logger.warn({ err: describeError(error) }, 'an idle store connection failed'));
  // The pool listens only while a connection is idle (pg-pool removes its listener on checkout): one
  // that the server ends while it is checked out but between queries emits 'error' with no listener,
  // which would end the process. A query on it fails on its own (unavailable); the pool drops it on
  // release. (Defensive: a server stopped under a running query was seen to fail only the query.)
  pool.on('connect', (client) => {
    client.on('error', (error) => options.logger.warn({ err: describeError(error) }, 'a store connection failed'));
  });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(options.migrations) },
    migrationTableName: `${options.service.replace(/-/g, '_')}_migration`,
    migrationLockTableName: `${options.service.replace(/-/g, '_')}_migration_lock`,
    // Named, not left to search_path: Kysely looks for its tables in every schema unless told one,
    // and would take another namespace's migration tables for this one's.
    migrationTableSchema: schema,
  });
  let result: MigrationResultSet;
  try {
    await createSchema(pool, schema);
    result = await migrator.migrateToLatest();
  } catch (error) {
    await db.destroy();
    throw new StoreUnavailableError(`${options.service}: the store could not be migrated: ${describeError(error)}`, error);
  }
  if (result.error) {
    await db.destroy();
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'the migrations';
    throw new StoreUnavailableError(`${options.service}: ${failed} failed: ${describeError(result.error)}`, result.error);
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

/** Whether `error`, thrown by a store query, means the store is unavailable (retry later) rather than a fault of ours. */
export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
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
