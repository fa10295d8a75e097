/**
 * A delivery's summary when two batches of its records are written side by side (different
 * partitions, written concurrently by the projection) on a real PostgreSQL server: the second's
 * attempt is written while the first holds the delivery's row, and the first summarizes and commits
 * while the second waits for that row. The second's summary, written last, must count both.
 */
import { sql } from 'kysely';
import { writeFacts } from '../src/adapters/store/projection/fact-writer';
import { summarizeDeliveries } from '../src/adapters/store/projection/delivery-summary';
import { writeAttempts } from '../src/adapters/store/projection/outbound-writes';
import { waitFor } from '../../../test/helpers/infrastructure';
import { attemptOf, callbackRequest } from './support/callback-facts';
import { storesUnderTest } from './support/stores';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const postgres = storesUnderTest()[0]![1];

afterAll(() => postgres.stop());

test("an attempt written while another batch holds its delivery is in the delivery's summary once both commit", async () => {
  const store = await postgres.fresh();
  try {
    const { db } = store;
    const request = callbackRequest('d-race', T0);
    await writeFacts(db, [{ kind: 'delivery', request }]);
    const newest = attemptOf(request, T0 + 2000, { attempt: 2, outcome: 'DELIVERED', httpStatus: 200 });
    // An older attempt, read later from another partition.
    const older = attemptOf(request, T0 + 1000, { attempt: 1, outcome: 'FAILED_ATTEMPT', httpStatus: 500 });
    let second: Promise<void> | undefined;
    await db.transaction().execute(async (trx) => {
      // The first batch has written its attempt and holds the delivery's row (a lock that lets
      // the second write its own attempt, as it could before the first's UPDATE took the row).
      await writeAttempts(trx, [newest]);
      await sql`select delivery_id from deliveries where delivery_id = ${request.delivery_id} for update`.execute(trx);
      // The second batch, on another connection of the pool, runs until it waits for that row.
      second = writeFacts(db, [older]);
      await waitFor(async () => {
        const waiting = await sql<{ n: number }>`select count(*)::integer as n from pg_locks where not granted`.execute(db);
        return waiting.rows[0]!.n > 0;
      }, 'the second batch waiting for the delivery the first holds');
      // The first summarizes and commits while the second waits.
      await summarizeDeliveries(trx, [request.delivery_id]);
    });
    await second;
    expect(
      await db.selectFrom('deliveries').select(['attempt_count', 'state', 'last_http_status', 'last_attempt_at']).executeTakeFirstOrThrow(),
    ).toEqual({ attempt_count: 2, state: 'delivered', last_http_status: 200, last_attempt_at: new Date(T0 + 2000) });
  } finally {
    await store.close();
  }
});
