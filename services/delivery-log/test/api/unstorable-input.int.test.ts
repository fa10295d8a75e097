/**
 * The error mapper's backstop against both stores: a time validation refuses first
 * (storable-inputs.test.ts) that reached a query anyway (year 0, past the range) is taken, or
 * refused with what the mapper answers 400, never 500; a NUL in a text is taken (store/without-nul.ts).
 * This keeps the mapper honest about the errors the stores really throw: PGlite refuses the times
 * (22008, 22009, as errors of another realm under Jest) where the PostgreSQL server, through pg, takes them.
 */
import { refusalOf } from '../../src/api/api-router';
import { listDeliveries, type DeliveryFilter } from '../../src/queries/delivery-queries';
import type { DeliveryLogStore } from '../../src/store/database';
import { storesUnderTest } from '../support/stores';

for (const [name, store] of storesUnderTest()) {
  describe(`on ${name}`, () => {
    let s: DeliveryLogStore;
    beforeAll(async () => {
      s = await store.fresh();
    });
    afterAll(async () => {
      await s?.close();
      await store.stop();
    });

    /** What the API answers for `filter`: 200 when the store takes it, else what the mapper makes of its refusal. */
    async function answerTo(filter: Omit<DeliveryFilter, 'limit'>): Promise<{ status: number; causes: string[] }> {
      const causes: string[] = [];
      const status = await listDeliveries(s.db, { limit: 10, ...filter }).then(
        () => 200,
        (refused: unknown) => refusalOf(refused, (cause) => causes.push(cause)).httpStatus,
      );
      return { status, causes };
    }

    // What each store does with it: the PostgreSQL server, through pg, takes every one of these.
    const refused = { status: 400, causes: ['unstorable'] };
    const taken = { status: 200, causes: [] };
    const pglite = store.kind === 'pglite';
    test.each([
      ['a year-0 time', { from: new Date('0000-01-01T00:00:00Z') }, pglite ? refused : taken],
      ['a time past its range', { to: new Date(8.64e15) }, pglite ? refused : taken],
      ['a NUL in a text', { policyNumber: 'P-\u00001' }, taken],
    ])('when a query names %s, then the answer is not a 500', async (_what, filter, expected) => {
      expect(await answerTo(filter)).toEqual(expected);
    });
  });
}
