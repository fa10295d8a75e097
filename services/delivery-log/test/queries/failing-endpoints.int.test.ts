/**
 * The failing endpoints' order on a real PostgreSQL server, from attempts the projection wrote:
 * worst first, so an endpoint whose circuit is open (nothing sent at all) comes before one failing
 * often but delivering 40 % (issue 46: it ranked by failed sends, the busy endpoint first).
 */
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import { failingEndpoints } from '../../src/adapters/store/queries/failing-endpoints';
import type { Fact } from '../../src/entry/kafka/facts';
import { attemptOf, callbackRequest } from '../support/callback-facts';
import { storesUnderTest } from '../support/stores';

const NOW = new Date('2026-11-25T12:30:00Z');
const at = (time: string) => Date.parse(`2026-11-25T${time}:00Z`);

let deliveries = 0;
/** `count` records of one outcome for a partner's main endpoint, one delivery each, from `time` on. */
const records = (partnerId: string, time: string, outcome: string, count = 1, errorClass: string | null = null): Fact[] =>
  Array.from({ length: count }, (_, i) => {
    const request = callbackRequest(`${partnerId}-${++deliveries}`, at(time) - 1000, { partnerId });
    const httpStatus = outcome === 'DELIVERED' ? 200 : outcome === 'FAILED_ATTEMPT' ? 500 : null;
    return attemptOf(request, at(time) + i * 10, { outcome, httpStatus, errorClass });
  });

/** The busy partner as its partner-config record gives it: its endpoint named (the others have no record: no name, no URL). */
const busyPartner: Fact = {
  kind: 'partner',
  partnerId: 'busy',
  partner: {
    partner_id: 'busy',
    name: 'Busy Ltd',
    status: 'ACTIVE',
    revision: 1,
    updated_at: at('09:00'),
    api_keys: [],
    callback_endpoints: [
      {
        endpoint_id: 'main',
        name: 'Claims system',
        url: 'https://busy.example/cb',
        timeout_ms: 10_000,
        statuses: [],
        product_codes: [],
        ordering: 'LATEST_WINS',
      },
    ],
    outbound_auth: null,
    body_mapping: { shape: 'FULL', rules: [], signature_field: null, absent_fields: 'OMIT' },
  },
};

const facts: Fact[] = [
  busyPartner,
  // Busy, 11 of 27 delivered (40.7 %), 16 failed sends: its circuit closed.
  ...records('busy', '12:01', 'DELIVERED', 11),
  ...records('busy', '12:02', 'FAILED_ATTEMPT', 16, 'HTTP_STATUS'),
  // Refusing connections: two failed sends, then its circuit opened and sending paused.
  ...records('paused', '12:03', 'FAILED_ATTEMPT', 2, 'CONNECTION_REFUSED'),
  ...records('paused', '12:04', 'SKIPPED_CIRCUIT_OPEN', 1, 'CIRCUIT_OPEN'),
  // Every send failing (0 %), its circuit still closed.
  ...records('failing', '12:05', 'FAILED_ATTEMPT', 3, 'HTTP_STATUS'),
  // Many failed sends earlier in the day, none in the last hour (no success rate to judge it by now).
  ...records('quiet', '10:00', 'FAILED_ATTEMPT', 20, 'HTTP_STATUS'),
];

for (const [name, store] of storesUnderTest()) {
  describe(`failing endpoints on ${name}`, () => {
    let s: DeliveryLogStore;
    beforeAll(async () => {
      s = await store.fresh();
      await writeFacts(s.db, facts);
    });
    afterAll(async () => {
      await s?.close();
      await store.stop();
    });

    test('worst first: circuit open, then the lowest success rate over the last hour, then one without sends in it; not by failed sends', async () => {
      const page = await failingEndpoints(s.db, { limit: 10, offset: 0 }, NOW);
      expect(page.items.map((e) => [e.partner_id, e.circuit_state, e.success_rate_last_hour])).toEqual([
        ['paused', 'open', 0],
        ['failing', 'closed', 0],
        ['busy', 'closed', 11 / 27],
        ['quiet', 'closed', null],
      ]);
      // The endpoint's name and URL from the partner's projected record; none for a partner without one.
      expect(page.items.map((e) => [e.partner_id, e.endpoint_name, e.url])).toContainEqual([
        'busy',
        'Claims system',
        'https://busy.example/cb',
      ]);
      expect(page.items.find((e) => e.partner_id === 'quiet')).toMatchObject({ endpoint_name: null, url: null });
      // The same order page by page.
      const second = await failingEndpoints(s.db, { limit: 1, offset: 1 }, NOW);
      expect(second.items.map((e) => e.partner_id)).toEqual(['failing']);
    });
  });
}
