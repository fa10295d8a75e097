/*
 * The log's database through a pool that asks PostgreSQL, on the same connection and just before
 * each query (but a transaction's own statements and the scope's set_config), which role runs it
 * and which partner is set: what a test of row security's scope compares.
 */
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { createLogger, openPostgresPool } from '@hookstream/runtime';
import type { DeliveryLogDb, DeliveryLogTables } from '../../src/adapters/store/tables';

export interface SeenQuery {
  sql: string;
  role: string;
  partner: string | null;
}

/** `seen` gets every query run through the database returned, with its role and partner. */
export function recordingDb(url: string, seen: SeenQuery[]): DeliveryLogDb {
  const pool = openPostgresPool({ url, logger: createLogger({ service: 'test', level: 'silent' }) });
  const recording: PostgresPool = {
    connect: async () => {
      const client = await pool.connect();
      const query = async (sql: string, parameters: readonly unknown[]) => {
        if (!/^\s*(begin|commit|rollback|select set_config)/i.test(sql)) {
          const { rows } = await client.query<{ role: string; partner: string | null }>(
            "select current_user::text as role, nullif(current_setting('app.partner_id', true), '') as partner",
          );
          seen.push({ sql, role: rows[0]!.role, partner: rows[0]!.partner });
        }
        return client.query(sql, parameters as unknown[]);
      };
      return { query, release: () => client.release() } as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
  return new Kysely<DeliveryLogTables>({ dialect: new PostgresDialect({ pool: recording }) });
}
