/*
 * The one way a Hookstream process opens a PostgreSQL pool (the services' state stores, the delivery
 * log): every pool waits a bounded time for a connection and for each statement, so a server that
 * hangs (accepts and never answers, or stops answering mid-query) fails a query as unavailable, to be
 * tried again, instead of holding a partition, a webhook or an API request indefinitely; and no
 * connection's failure can end the process.
 */
import { Pool, types as pgTypes } from 'pg';
import { describeError } from '@hookstream/errors';
import type { Logger } from '../logging';

export interface PostgresPoolOptions {
  /** postgres:// URL; its own `options` parameter is kept, with `startupOptions` added to it. */
  url: string;
  /** Connections of this pool. Default 10. */
  maxConnections?: number;
  /** A query waits this long for a connection before it fails as unavailable. Default 5,000 ms. */
  connectTimeoutMs?: number;
  /** The server cancels a statement running longer. Default 30,000 ms. */
  statementTimeoutMs?: number;
  /** Server settings for every connection (`-c search_path=…`). Default none. */
  startupOptions?: string;
  /** Told of a connection that failed; the pool replaces it. */
  logger: Logger;
}

/** PostgreSQL's bigint (int8): as JavaScript numbers, since every such value here (times, versions, offsets, sizes) is below 2^53. */
const INT8 = 20;

/** A pool with bounded waits, bigints as numbers, and listeners for every connection's failure. */
export function openPostgresPool(options: PostgresPoolOptions): Pool {
  const parserOf = (oid: number, format?: string) => pgTypes.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  const { url, startupOptions } = withoutStartupOptions(options.url);
  const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
  const pool = new Pool({
    connectionString: url,
    // Added to the URL's own `options` (which would otherwise replace them). Not a statement on
    // connect, which races the connection's first query.
    options: [startupOptions, options.startupOptions].filter(Boolean).join(' ') || undefined,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    // A query never hangs on a half-open connection or a stuck server: it fails (as unavailable) and
    // its work is tried again, where waiting would hold a partition or a request indefinitely. The
    // client's own bound is a little longer than the server's, which answers first when it can.
    keepAlive: true,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 5_000,
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
  return pool;
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
