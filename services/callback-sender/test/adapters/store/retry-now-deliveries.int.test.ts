import { createLogger, openStateStore } from '@hookstream/runtime';
import { StoreUnavailableError } from '@hookstream/errors';
import { type KafkaMessage } from '@hookstream/kafka';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../../test/helpers/state-database';
import { LatestVersions } from '../../../src/adapters/store/latest-versions';
import { RetryNowDeliveries } from '../../../src/adapters/store/retry-now-deliveries';
import { versionMigrations, type VersionTables } from '../../../src/adapters/store/version-table';

/**
 * The deliveries a retry now delivered, in the sender's state store on a real PostgreSQL: what a
 * tier record asks when it comes due (asked together within a turn), swept with the versions after
 * their window; a store not open rejects, it never answers "not delivered". And a test event is left
 * out of the versions recorded.
 */
const logger = createLogger({ service: 'retry-now-deliveries-test', level: 'silent' });
const DAY = 24 * 3600_000;
let database: StateDatabase;
let versions: LatestVersions;
let deliveries: RetryNowDeliveries;

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
  deliveries = new RetryNowDeliveries(() => versions.db());
  await versions.start();
});
afterEach(async () => {
  await versions.stop();
  await database.drop();
});
afterAll(() => stopStateServer());

test('a tier record asks whether a retry now delivered its delivery after it last waited; the asks of a turn are answered together', async () => {
  await deliveries.recordDelivered('d-1', 1_000);
  // Recorded again later (a retry now of a delivery delivered before, sent again since): the later time holds.
  await deliveries.recordDelivered('d-1', 5_000);
  await deliveries.recordDelivered('d-1', 2_000);
  expect(
    await Promise.all([
      deliveries.deliveredSince('d-1', 4_000),
      deliveries.deliveredSince('d-1', 5_000),
      deliveries.deliveredSince('d-2', 0),
    ]),
  ).toEqual([true, false, false]);
});

test('rows are swept with the versions once older than the window', async () => {
  const now = Date.now();
  await deliveries.recordDelivered('old', now - DAY - 1);
  await deliveries.recordDelivered('new', now);
  expect(await versions.sweep(now)).toBe(1);
  expect(await Promise.all([deliveries.deliveredSince('old', 0), deliveries.deliveredSince('new', 0)])).toEqual([false, true]);
});

test('the store not open: both calls reject, never answer "not delivered"', async () => {
  await versions.stop();
  await expect(deliveries.deliveredSince('d-1', 0)).rejects.toBeInstanceOf(StoreUnavailableError);
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
