import { Client } from 'pg';
import { createLogger } from '@hookstream/runtime';
import { openStore, type DeliveryLogStore } from '../../src/adapters/store/database';
import { startPostgres, type RunningPostgres } from '../../../../test/helpers/postgres';

export interface StoreUnderTest {
  fresh: () => Promise<DeliveryLogStore>;
  stop: () => Promise<void>;
}

/**
 * The store every store test runs against: a real PostgreSQL server started for the suite. Each
 * `fresh()` is an empty, migrated database. A list of one, named, so a suite's titles say which.
 */
export function storesUnderTest(): Array<[string, StoreUnderTest]> {
  let postgres: RunningPostgres | undefined;
  let databases = 0;
  const server: StoreUnderTest = {
    async fresh() {
      postgres ??= await startPostgres();
      // A database per call: tests never see each other's rows.
      const name = `t${++databases}_${process.pid}`;
      const admin = new Client({ connectionString: postgres.url });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      return storeAt(postgres.url.replace(/\/hookstream$/, `/${name}`));
    },
    stop: async () => {
      await postgres?.stop();
    },
  };
  return [['PostgreSQL server', server]];
}

/** The log's store at `url`, opened as main.ts opens it, its connection failures not logged. */
export function storeAt(url: string): Promise<DeliveryLogStore> {
  return openStore({ url, logger: createLogger({ service: 'test', level: 'silent' }) });
}
