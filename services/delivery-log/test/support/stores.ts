import { Client } from 'pg';
import { openStore, type DeliveryLogStore } from '../../src/store/database';
import { startPostgres, type RunningPostgres } from '../../../../test/helpers/postgres';

export interface StoreUnderTest {
  kind: DeliveryLogStore['kind'];
  fresh: () => Promise<DeliveryLogStore>;
  stop: () => Promise<void>;
}

/**
 * The two stores every store test runs against: PGlite in memory (what `npm start` embeds) and a
 * real PostgreSQL server started for the suite. Each `fresh()` is an empty, migrated database.
 */
export function storesUnderTest(): Array<[string, StoreUnderTest]> {
  let postgres: RunningPostgres | undefined;
  let databases = 0;
  const pglite: StoreUnderTest = {
    kind: 'pglite',
    fresh: () => openStore({ kind: 'pglite', dataDir: 'memory://' }),
    stop: async () => {},
  };
  const server: StoreUnderTest = {
    kind: 'postgresql',
    async fresh() {
      postgres ??= await startPostgres();
      // A database per call: tests never see each other's rows.
      const name = `t${++databases}_${process.pid}`;
      const admin = new Client({ connectionString: postgres.url });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      return openStore({ kind: 'postgresql', url: postgres.url.replace(/\/hookstream$/, `/${name}`) });
    },
    stop: async () => {
      await postgres?.stop();
    },
  };
  return [
    ['PGlite (embedded)', pglite],
    ['PostgreSQL server', server],
  ];
}
