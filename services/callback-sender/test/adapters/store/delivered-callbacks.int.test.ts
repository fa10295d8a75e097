import { createLogger, openStateStore } from '@hookstream/runtime';
import { StoreUnavailableError } from '@hookstream/errors';
import { type KafkaMessage } from '@hookstream/kafka';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../../test/helpers/state-database';
import { LatestVersions } from '../../../src/adapters/store/latest-versions';
import { DeliveredCallbacks } from '../../../src/adapters/store/delivered-callbacks';
import { versionMigrations, type VersionTables } from '../../../src/adapters/store/version-table';

/**
 * The deliveries a retry now or a tier's record delivered, in the sender's state store on a real
 * PostgreSQL: what a tier record or a retry now asks before it sends (asked together within a turn),
 * delivered whenever it was delivered, swept with the versions after their window; a store not open rejects, it never answers "not delivered". And a test event is left
 * out of the versions recorded.
 */
const logger = createLogger({ service: 'delivered-callbacks-test', level: 'silent' });
const DAY = 24 * 3600_000;
let database: StateDatabase;
let versions: LatestVersions;
let deliveries: DeliveredCallbacks;

beforeEach(async () => {
  database = await freshStateDatabase();
  versions = new LatestVersions({
    openStore: () =>
      openStateStore<VersionTables>({
        url: database.url,
        service: 'callback-sender',
        migrations: versionMigrations,
        logger,
        connectTimeoutMs: 1000,
      }),
    logger,
    windowMs: DAY,
    sweepAlso: (cutoff) => deliveries.sweep(cutoff),
  });
  deliveries = new DeliveredCallbacks(() => versions.db());
  await versions.start();
});
afterEach(async () => {
  await versions.stop();
  await database.drop();
});
afterAll(() => stopStateServer());

test('a record asks whether its delivery was delivered, at any time; the asks of a turn are answered together', async () => {
  await deliveries.recordDelivered('d-1', 5_000);
  // Recorded again (two sends that met across replicas): one row, the later time kept for the sweep.
  await deliveries.recordDelivered('d-1', 2_000);
  expect(await Promise.all([deliveries.wasDelivered('d-1'), deliveries.wasDelivered('d-2'), deliveries.wasDelivered('d-1')])).toEqual([
    true,
    false,
    true,
  ]);
});

test('rows are swept with the versions once older than the window', async () => {
  const now = Date.now();
  await deliveries.recordDelivered('old', now - DAY - 1);
  await deliveries.recordDelivered('new', now);
  expect(await versions.sweep(now)).toBe(1);
  expect(await Promise.all([deliveries.wasDelivered('old'), deliveries.wasDelivered('new')])).toEqual([false, true]);
});

test('the store not open: both calls reject, never answer "not delivered"', async () => {
  await versions.stop();
  await expect(deliveries.wasDelivered('d-1')).rejects.toBeInstanceOf(StoreUnavailableError);
  await expect(deliveries.recordDelivered('d-1', 0)).rejects.toBeInstanceOf(StoreUnavailableError);
});

test('a test event is not recorded among the versions: it supersedes nothing', async () => {
  const record = (version: number, trigger?: string) =>
    ({
      key: Buffer.from('POL-1'),
      value: null,
      headers: {
        'hookstream-partner-id': 'p1',
        'hookstream-endpoint-id': 'e1',
        'hookstream-policy-version': String(version),
        ...(trigger ? { 'hookstream-trigger': trigger } : {}),
      },
      offset: '0',
      timestamp: '0',
    }) as unknown as KafkaMessage;
  await versions.recordBatch([record(2), record(9, 'TEST')]);
  expect(await versions.isSuperseded('p1', 'e1', 'POL-1', 2)).toBe(false);
  await versions.recordBatch([record(3, 'RETRY_NOW')]);
  expect(await versions.isSuperseded('p1', 'e1', 'POL-1', 2)).toBe(true);
});
