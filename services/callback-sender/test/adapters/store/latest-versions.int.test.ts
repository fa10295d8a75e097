import { createLogger, openStateStore } from '@hookstream/runtime';
import { StoreUnavailableError } from '@hookstream/errors';
import { type KafkaMessage } from '@hookstream/kafka';
import { Client } from 'pg';
import { TcpGate } from '../../../../../test/helpers/tcp-gate';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../../test/helpers/state-database';
import { LatestVersions, type LatestVersionsOptions } from '../../../src/adapters/store/latest-versions';
import { versionMigrations, type VersionTables } from '../../../src/adapters/store/version-table';

/**
 * The sender's latest versions against a real PostgreSQL: a database of its own per test, and
 * instances as separate replicas would have them (a store each over the one database).
 */
const logger = createLogger({ service: 'latest-versions-test', level: 'silent' });
const DAY = 24 * 3600_000;
let database: StateDatabase;
const opened: LatestVersions[] = [];

beforeEach(async () => {
  database = await freshStateDatabase();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((v) => v.stop()));
  await database.drop();
});
afterAll(() => stopStateServer());

async function replica(options: Partial<LatestVersionsOptions> = {}, url = database.url): Promise<LatestVersions> {
  const versions = new LatestVersions({
    openStore: () =>
      openStateStore<VersionTables>({ url, service: 'callback-sender', migrations: versionMigrations, logger, connectTimeoutMs: 1000 }),
    logger,
    windowMs: DAY,
    ...options,
  });
  opened.push(versions);
  await versions.start();
  return versions;
}

/** A callback-requests record as the sender reads it: the policy number as key, the rest in headers. */
function request(partner: string, endpoint: string, policy: string, version: number): KafkaMessage {
  return {
    key: Buffer.from(policy),
    value: null,
    headers: { 'hookstream-partner-id': partner, 'hookstream-endpoint-id': endpoint, 'hookstream-policy-version': String(version) },
    offset: '0',
    timestamp: '0',
    attributes: 0,
    size: 0,
  } as unknown as KafkaMessage;
}

async function rowCount(): Promise<number> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    return Number((await client.query('select count(*) as n from latest_policy_version')).rows[0].n);
  } finally {
    await client.end();
  }
}

test('when a newer version of a policy was read for an endpoint, then an older one is superseded there and nowhere else', async () => {
  const versions = await replica();
  // One batch with two versions of one policy (ON CONFLICT may not touch a row twice in one statement).
  await versions.recordBatch([request('p1', 'e1', 'POL-1', 1), request('p1', 'e1', 'POL-1', 3), request('p1', 'e2', 'POL-1', 1)]);
  const checks = await Promise.all([
    versions.isSuperseded('p1', 'e1', 'POL-1', 1),
    versions.isSuperseded('p1', 'e1', 'POL-1', 2),
    versions.isSuperseded('p1', 'e1', 'POL-1', 3),
    versions.isSuperseded('p1', 'e1', 'POL-1', 4),
    versions.isSuperseded('p1', 'e2', 'POL-1', 1),
    versions.isSuperseded('p1', 'e1', 'POL-2', 1),
    versions.isSuperseded('p2', 'e1', 'POL-1', 1),
  ]);
  expect(checks).toEqual([true, true, false, false, false, false, false]);
});

test('when an older version is read again (a rewind or a replay), then the newer one stays', async () => {
  const versions = await replica();
  await versions.recordBatch([request('p1', 'e1', 'POL-1', 5)]);
  await versions.recordBatch([request('p1', 'e1', 'POL-1', 2)]);
  await expect(versions.isSuperseded('p1', 'e1', 'POL-1', 4)).resolves.toBe(true);
  await expect(versions.isSuperseded('p1', 'e1', 'POL-1', 5)).resolves.toBe(false);
});

test('when records lack the headers, then they are left out and the rest of the batch is recorded', async () => {
  const versions = await replica();
  const bare = { ...request('p1', 'e1', 'POL-1', 1), headers: {} } as KafkaMessage;
  await versions.recordBatch([bare, request('p1', 'e1', 'POL-9', 2)]);
  expect(await rowCount()).toBe(1);
});

test('when one replica records a version, then another replica over the same database judges by it', async () => {
  const [a, b] = [await replica(), await replica()];
  await a.recordBatch([request('p1', 'e1', 'POL-1', 2)]);
  await expect(b.isSuperseded('p1', 'e1', 'POL-1', 1)).resolves.toBe(true);
  await b.recordBatch([request('p1', 'e1', 'POL-1', 7)]);
  await expect(a.isSuperseded('p1', 'e1', 'POL-1', 6)).resolves.toBe(true);
  await expect(Promise.all([a.isSuperseded('p1', 'e1', 'POL-1', 7), b.isSuperseded('p1', 'e1', 'POL-1', 7)])).resolves.toEqual([
    false,
    false,
  ]);
});

test('when rows were not seen within the window, then a sweep deletes them in bounded statements and keeps the rest', async () => {
  let now = Date.now();
  const versions = await replica({ now: () => now, sweepBatchSize: 2, sweepIntervalMs: 3_600_000 });
  await versions.recordBatch(Array.from({ length: 5 }, (_, i) => request('p1', 'e1', `OLD-${i}`, 1)));
  now += DAY / 2;
  await versions.recordBatch([request('p1', 'e1', 'RECENT', 1), request('p1', 'e1', 'OLD-0', 2)]);
  now += DAY / 2 + 1;
  await expect(versions.sweep()).resolves.toBe(4);
  expect(await rowCount()).toBe(2);
  await expect(versions.isSuperseded('p1', 'e1', 'OLD-0', 1)).resolves.toBe(true);
  await expect(versions.isSuperseded('p1', 'e1', 'OLD-1', 0)).resolves.toBe(false);
});

test('when the store is stopped, then recording and checking reject as unavailable (never "not superseded") and work again once it is back', async () => {
  const gate = new TcpGate(Number(new URL(database.url).port || 5432));
  await gate.open();
  const proxied = new URL(database.url);
  proxied.port = String(gate.port);
  const versions = await replica({}, proxied.toString());
  await versions.recordBatch([request('p1', 'e1', 'POL-1', 2)]);
  await gate.close();
  try {
    await expect(versions.recordBatch([request('p1', 'e1', 'POL-1', 3)])).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(versions.isSuperseded('p1', 'e1', 'POL-1', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(versions.check()).rejects.toThrow();
    await gate.open();
    await versions.check();
    await versions.recordBatch([request('p1', 'e1', 'POL-1', 3)]);
    await expect(versions.isSuperseded('p1', 'e1', 'POL-1', 2)).resolves.toBe(true);
  } finally {
    await gate.close();
  }
});
