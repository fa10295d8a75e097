/**
 * The error mapper's backstop against the store: a time validation refuses first
 * (storable-inputs.test.ts) that reached a query anyway (year 0, past the range) is taken by
 * PostgreSQL through pg, never a 500; a NUL in a text is taken (adapters/store/without-nul.ts). The mapper's
 * answer to a refusal (22008, 22009) is in refusals.test.ts.
 */
import { refusalOf } from '../../src/entry/http/api-router';
import { listDeliveries, type DeliveryFilter } from '../../src/adapters/store/queries/delivery-queries';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
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

    // The PostgreSQL server, through pg, takes every one of these.
    const taken = { status: 200, causes: [] };
    test.each([
      ['a year-0 time', { from: new Date('0000-01-01T00:00:00Z') }, taken],
      ['a time past its range', { to: new Date(8.64e15) }, taken],
      ['a NUL in a text', { policyNumber: 'P-\u00001' }, taken],
    ])('when a query names %s, then the answer is not a 500', async (_what, filter, expected) => {
      expect(await answerTo(filter)).toEqual(expected);
    });
  });
}
