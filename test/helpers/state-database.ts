import { Client } from 'pg';
import { startPostgres, type RunningPostgres } from './postgres';

export interface StateDatabase {
  /** postgres://… of an empty database of its own. */
  url: string;
  /** Drops the database (and stops the server when this helper started it). */
  drop: () => Promise<void>;
}

let started: Promise<RunningPostgres> | undefined;

/**
 * An empty database for one test's state store, on the stack's PostgreSQL (DATABASE_URL, set by
 * `hookstream stack exec`) or, when none is set, on a server this helper starts once per test file.
 * A database per call: tests never see each other's rows.
 */
export async function freshStateDatabase(): Promise<StateDatabase> {
  const serverUrl = process.env.DATABASE_URL ?? (await (started ??= startPostgres())).url;
  const name = `state_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Stops the server freshStateDatabase started, if it started one (call in afterAll). */
export async function stopStateServer(): Promise<void> {
  const server = started;
  started = undefined;
  await (await server)?.stop();
}
