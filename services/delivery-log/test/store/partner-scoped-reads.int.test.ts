/**
 * The partner-facing reads outside the read routes (a retry now's delivery, a resend's state and
 * dead letters, a test event's attempt, a recovery's) run in the partner's scope whoever calls them,
 * and so does every write of the stores a partner's handle is built on (the places under its limits,
 * a retry now's claim): each query is seen by PostgreSQL itself as the partner role with the partner
 * set (row security, migrations 0010 and 0016), so a filter a query forgot would still show, and
 * write, no other partner's rows. An operator's retry now reads and writes as the store's own user.
 */
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { PARTNER_READER_ROLE } from '../../src/adapters/store/partner-scope';
import { partnerScopes, type PartnerStores } from '../../src/adapters/store/partner-store';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import { testAttemptOf } from '../../src/adapters/store/queries/test-event-queries';
import { recoveryStore } from '../../src/adapters/store/recovery-store';
import { resendStore } from '../../src/adapters/store/resend-store';
import { retryStore } from '../../src/adapters/store/retry-store';
import type { DeliveryLogDb } from '../../src/adapters/store/tables';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';
import { callbackRequest } from '../support/callback-facts';
import { recordingDb, type SeenQuery } from '../support/recording-db';
import { storeAt } from '../support/stores';

let database: StateDatabase;
let store: DeliveryLogStore;
let db: DeliveryLogDb;
const seen: SeenQuery[] = [];
const NOW = new Date('2026-11-25T12:00:00Z');

beforeAll(async () => {
  database = await freshStateDatabase();
  store = await storeAt(database.url);
  db = recordingDb(database.url, seen);
  // A retry now's claim is its delivery's partner's (migration 0016): partner-a's d-1.
  await writeFacts(store.db, [{ kind: 'delivery', request: callbackRequest('d-1', NOW.getTime(), { partnerId: 'partner-a' }) }]);
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

const LIMIT = { kind: 'endpoints' as const, count: 5, windowMs: 3_600_000 };
/** The stores partner-a's handle is built on, as forPartner builds them. */
const storesOf = (partnerId: string) =>
  partnerScopes(db, { resendsPerHour: 10, testEventsPerMinute: 10 }, (stores) => ({ stores }))(partnerId).stores;
async function given<P extends { reserved: boolean }>(place: Promise<P>): Promise<Extract<P, { reserved: true }>> {
  const taken = await place;
  if (!taken.reserved) throw new Error('no place was given');
  return taken as Extract<P, { reserved: true }>;
}

const writes: Array<[string, (stores: PartnerStores) => Promise<unknown>]> = [
  [
    "a resend's place, taken and given back",
    async (s) => s.resends.release((await given(s.resends.reserve('partner-a', 'd-1', NOW))).reservationId),
  ],
  [
    "a recovery's places, counted, taken and given back",
    async (s) => {
      await s.recoveries.resendsLeft('partner-a', NOW);
      await s.recoveries.release((await given(s.recoveries.reserve('partner-a', 'd-1', NOW))).reservationId);
    },
  ],
  ["a retry now's place", async (s) => s.retries.release((await given(s.retries.reserve('partner-a', 'd-1', NOW))).reservationId)],
  [
    "a retry now's claim, taken and given back",
    async (s) => {
      const claim = await s.retries.claim('d-1', 0, NOW, NOW);
      if (claim.claimed) await s.retries.releaseClaim(claim.claimId);
    },
  ],
  [
    "a test event's place",
    async (s) =>
      s.testEvents.reservations.release((await given(s.testEvents.reservations.reserve('partner-a', 'test_1', NOW))).reservationId),
  ],
  ["a self-service change's place", async (s) => s.places.release((await given(s.places.reserve('partner-a', LIMIT, NOW))).changeId)],
];

test.each(writes)('when a partner writes %s, then every query runs as the partner role with that partner set', async (_what, write) => {
  seen.length = 0;
  await write(storesOf('partner-a'));
  expect(seen.filter(({ sql }) => /^\s*(insert|delete)/i.test(sql)).length).toBeGreaterThan(0);
  expect(seen.map(({ role, partner }) => ({ role, partner }))).toEqual(
    seen.map(() => ({ role: PARTNER_READER_ROLE, partner: 'partner-a' })),
  );
});

test("when an operator retries a delivery (no partner named), then it reads and writes as the store's own user, every partner's rows", async () => {
  seen.length = 0;
  const store = retryStore(db, 10);
  await store.deliveryOf('d-1', undefined);
  await store.claim('d-1', 0, NOW, NOW);
  await store.reserve('partner-a', 'd-1', NOW);
  expect(seen.length).toBeGreaterThanOrEqual(3);
  expect(seen.map(({ role, partner }) => ({ role, partner }))).toEqual(
    seen.map(() => ({ role: expect.not.stringMatching(PARTNER_READER_ROLE), partner: null })),
  );
});
