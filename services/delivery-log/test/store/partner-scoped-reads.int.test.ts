/**
 * The partner-facing reads outside the read routes (a retry now's delivery, a resend's state and
 * dead letters, a test event's attempt, a recovery's) run in the partner's scope whoever calls them:
 * each query is seen by PostgreSQL itself as the partner reader role with the partner set (row
 * security, migration 0010), so a filter a query forgot would still show no other partner's rows.
 */
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { PARTNER_READER_ROLE } from '../../src/adapters/store/partner-scope';
import { testAttemptOf } from '../../src/adapters/store/queries/test-event-queries';
import { recoveryStore } from '../../src/adapters/store/recovery-store';
import { resendStore } from '../../src/adapters/store/resend-store';
import { retryStore } from '../../src/adapters/store/retry-store';
import type { DeliveryLogDb } from '../../src/adapters/store/tables';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';
import { recordingDb, type SeenQuery } from '../support/recording-db';
import { storeAt } from '../support/stores';

let database: StateDatabase;
let store: DeliveryLogStore;
let db: DeliveryLogDb;
const seen: SeenQuery[] = [];

beforeAll(async () => {
  database = await freshStateDatabase();
  store = await storeAt(database.url);
  db = recordingDb(database.url, seen);
});

afterAll(async () => {
  await db?.destroy();
  await store?.close();
  await database?.drop();
  await stopStateServer();
});

const reads: Array<[string, (partnerId: string) => Promise<unknown>]> = [
  ["a retry now's delivery", (partnerId) => retryStore(db, 10, partnerId).deliveryOf('d-1', partnerId)],
  ["a resend's delivery state", (partnerId) => resendStore(db, 10, partnerId).deliveryStateOf(partnerId, 'd-1')],
  ["a resend's dead letters", (partnerId) => resendStore(db, 10, partnerId).callbackDeadLettersOf(partnerId, 'd-1')],
  ["a test event's attempt", (partnerId) => testAttemptOf(db, 'd-1', partnerId)],
  ["a recovery's endpoint", (partnerId) => recoveryStore(db, 10, partnerId).endpointKnown(partnerId, 'main')],
  [
    "a recovery's dead letters",
    (partnerId) => recoveryStore(db, 10, partnerId).waitingSince(partnerId, { since: new Date(0) }, undefined, 10),
  ],
];

test.each(reads)('when a partner reads %s, then every query runs as the partner reader with that partner set', async (_what, read) => {
  seen.length = 0;
  await read('partner-a');
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.map(({ role, partner }) => ({ role, partner }))).toEqual(
    seen.map(() => ({ role: PARTNER_READER_ROLE, partner: 'partner-a' })),
  );
});

test("when an operator retries a delivery (no partner named), then it reads as the store's own user, every partner's rows", async () => {
  seen.length = 0;
  await retryStore(db, 10).deliveryOf('d-1', undefined);
  expect(seen.map(({ role, partner }) => ({ role, partner }))).toEqual([
    { role: expect.not.stringMatching(PARTNER_READER_ROLE), partner: null },
  ]);
});
