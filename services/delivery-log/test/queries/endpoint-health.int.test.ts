/**
 * A partner's endpoints' health on a real PostgreSQL server, from attempts the projection wrote: sends and
 * their success rate and 95th percentile latency over the last hour and day, hour by hour, and
 * the circuit as the sender's latest record says.
 */
import type { Partner } from '@hookstream/partners';
import { sql } from 'kysely';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import type { Fact } from '../../src/entry/kafka/facts';
import { endpointHealth } from '../../src/adapters/store/queries/endpoint-health';
import { attemptOf, callbackRequest } from '../support/callback-facts';
import { storesUnderTest } from '../support/stores';

const NOW = new Date('2026-11-25T12:30:00Z');
/** A time of the day the test runs at, e.g. '12:05'; '-1d 11:00' the day before. */
const at = (time: string) => Date.parse(time.startsWith('-1d ') ? `2026-11-24T${time.slice(4)}:00Z` : `2026-11-25T${time}:00Z`);

const partner: Partner = {
  ...{ partner_id: 'acme', name: 'Acme', status: 'ACTIVE', revision: 1, updated_at: at('08:00'), api_keys: [], outbound_auth: null },
  callback_endpoints: ['main', 'backup'].map((id) => ({
    ...{ endpoint_id: id, url: `https://acme.example/${id}`, timeout_ms: 5000 },
    ...{ statuses: [], product_codes: [], ordering: 'LATEST_WINS' as const },
  })),
  body_mapping: { shape: 'FULL', rules: [], signature_field: null, absent_fields: 'OMIT' },
};

/** One delivery per record, so each is a send of its own. */
let deliveries = 0;
const record = (
  partnerId: string,
  endpointId: string,
  time: string,
  outcome: string,
  extra: { httpStatus?: number; latencyMs?: number; errorClass?: string | null } = {},
): Fact => {
  const request = callbackRequest(`${partnerId}-${++deliveries}`, at(time) - 1000, { partnerId, endpointId });
  const httpStatus = extra.httpStatus ?? (outcome === 'DELIVERED' ? 200 : outcome === 'FAILED_ATTEMPT' ? 500 : null);
  return attemptOf(request, at(time), { outcome, httpStatus, ...extra });
};
const sent = (endpointId: string, time: string, outcome: 'DELIVERED' | 'FAILED_ATTEMPT', latencyMs: number) =>
  record('acme', endpointId, time, outcome, { latencyMs });

const acme: Fact[] = [
  { kind: 'partner', partnerId: 'acme', partner },
  // The last hour: four delivered, one failed.
  ...[10, 20, 30, 40].map((latency, i) => sent('main', `12:${String(5 * (i + 1)).padStart(2, '0')}`, 'DELIVERED', latency)),
  sent('main', '12:25', 'FAILED_ATTEMPT', 50),
  // Earlier in the day, and the day before (left out).
  sent('main', '09:10', 'FAILED_ATTEMPT', 100),
  sent('main', '09:40', 'DELIVERED', 60),
  sent('main', '-1d 11:00', 'DELIVERED', 5),
  sent('backup', '10:15', 'DELIVERED', 7),
  // An endpoint since removed from the partner.
  sent('old', '12:12', 'FAILED_ATTEMPT', 30),
  // Not sends: neither counted nor (superseded) the circuit's latest word.
  record('acme', 'main', '12:01', 'SKIPPED_CIRCUIT_OPEN', { errorClass: 'CIRCUIT_OPEN' }),
  record('acme', 'main', '12:29', 'SUPERSEDED', { errorClass: null }),
];

// Partners whose circuit is told by their latest record.
const circuits: Fact[] = [
  record('skipping', 'main', '12:00', 'FAILED_ATTEMPT'),
  record('skipping', 'main', '12:10', 'SKIPPED_CIRCUIT_OPEN', { errorClass: 'CIRCUIT_OPEN' }),
  // Dead-lettered because its retries ran out while the circuit stayed open.
  record('given-up', 'main', '11:00', 'SKIPPED_CIRCUIT_OPEN', { errorClass: 'CIRCUIT_OPEN' }),
  record('given-up', 'main', '12:10', 'DEAD_LETTERED', { errorClass: 'CIRCUIT_OPEN' }),
  // Dead-lettered after its last send failed.
  record('failed-out', 'main', '12:00', 'FAILED_ATTEMPT'),
  record('failed-out', 'main', '12:10', 'DEAD_LETTERED', { httpStatus: 500, errorClass: 'HTTP_STATUS' }),
  record('recovered', 'main', '12:00', 'SKIPPED_CIRCUIT_OPEN', { errorClass: 'CIRCUIT_OPEN' }),
  record('recovered', 'main', '12:10', 'DELIVERED'),
  record('silent', 'main', '-1d 09:00', 'SKIPPED_CIRCUIT_OPEN', { errorClass: 'CIRCUIT_OPEN' }),
];

for (const [name, store] of storesUnderTest()) {
  describe(`endpoints' health on ${name}`, () => {
    let s: DeliveryLogStore;
    beforeAll(async () => {
      s = await store.fresh();
      await writeFacts(s.db, [...acme, ...circuits]);
    });
    afterAll(async () => {
      await s?.close();
      await store.stop();
    });

    test('per endpoint, sends, success rate and p95 latency over the last hour and day, and the day hour by hour (UTC)', async () => {
      const health = await endpointHealth(s.db, 'acme', NOW);
      expect(health.endpoints.map((e) => [e.endpoint_id, e.url])).toEqual([
        ['main', 'https://acme.example/main'],
        ['backup', 'https://acme.example/backup'],
        ['old', null],
      ]);
      const [main, backup, old] = health.endpoints;
      // percentile_cont interpolates: of 10…50, the 95th is 48; of 10…60 and 100, 88.
      expect(main!.last_hour).toEqual({ sends: 5, delivered: 4, success_rate: 0.8, p95_latency_ms: 48 });
      expect(main!.last_day).toEqual({ sends: 7, delivered: 5, success_rate: 5 / 7, p95_latency_ms: 88 });
      expect(main!.hourly).toEqual([
        { hour: new Date('2026-11-25T09:00:00Z'), sends: 2, delivered: 1, p95_latency_ms: 98 },
        { hour: new Date('2026-11-25T12:00:00Z'), sends: 5, delivered: 4, p95_latency_ms: 48 },
      ]);
      expect(backup!.last_hour).toEqual({ sends: 0, delivered: 0, success_rate: null, p95_latency_ms: null });
      expect(backup!.last_day).toEqual({ sends: 1, delivered: 1, success_rate: 1, p95_latency_ms: 7 });
      expect(old!.last_hour).toEqual({ sends: 1, delivered: 0, success_rate: 0, p95_latency_ms: 30 });
      // The latest record that says anything of the circuit is the failed send at 12:25.
      expect([health.circuit_state, health.circuit_as_of]).toEqual(['closed', new Date(at('12:25'))]);

      // The same UTC hours for a server whose TimeZone is half an hour off UTC's.
      const offZone = await s.db.transaction().execute(async (trx) => {
        await sql`set local timezone = 'Asia/Kolkata'`.execute(trx);
        return endpointHealth(trx, 'acme', NOW);
      });
      expect(offZone.endpoints[0]!.hourly).toEqual(main!.hourly);
    });

    test('the circuit is open when the latest record is a skip, or a dead-lettering because the circuit stayed open; closed after a send', async () => {
      const circuit = async (partnerId: string) => {
        const health = await endpointHealth(s.db, partnerId, NOW);
        return [health.circuit_state, health.circuit_as_of];
      };
      expect(await circuit('skipping')).toEqual(['open', new Date(at('12:10'))]);
      expect(await circuit('given-up')).toEqual(['open', new Date(at('12:10'))]);
      expect(await circuit('failed-out')).toEqual(['closed', new Date(at('12:10'))]);
      expect(await circuit('recovered')).toEqual(['closed', new Date(at('12:10'))]);
      expect(await circuit('silent')).toEqual(['unknown', null]);
    });
  });
}
