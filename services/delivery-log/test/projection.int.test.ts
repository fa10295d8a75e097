/**
 * The delivery log's projection as a process, on the real pipeline: webhooks through the ingress,
 * policy events through the consumer and sender to a partner that answers 200 and one that always
 * answers 500 (dead-lettered after every retry), into a real PostgreSQL server. The projection is
 * killed (SIGKILL) mid-run and restarted; its rows must then be what a projection built from
 * scratch out of the same topics writes: no duplicate, no gap.
 */
import { Client } from 'pg';
import { TopicNames } from '@hookstream/kafka';
import type { DeliveryLogStore } from '../src/adapters/store/database';
import { storeAt } from './support/stores';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, policyEvent, startService, type RunningService } from '../../../test/helpers/outbound';
import { postWebhook, webhook } from '../../../test/helpers/ingress';
import { readTopicToEnd, waitFor } from '../../../test/helpers/infrastructure';
import { startPostgres, type RunningPostgres } from '../../../test/helpers/postgres';
import { tableRows } from './support/table-rows';

let fixture: OutboundFixture;
let postgres: RunningPostgres;
const stores: DeliveryLogStore[] = [];
const projections: RunningService[] = [];

async function database(name: string): Promise<string> {
  const admin = new Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return postgres.url.replace(/\/hookstream$/, `/${name}`);
}

const startProjection = async (url: string, group: string) => {
  const projection = await startService(DELIVERY_LOG_ENTRY, fixture.prefix, {
    ...fixture.env,
    DELIVERY_LOG_DATABASE_URL: url,
    DELIVERY_LOG_GROUP: group,
    HTTP_PORT: '0',
  });
  projections.push(projection);
  return projection;
};

beforeAll(async () => {
  postgres = await startPostgres();
  fixture = await OutboundFixture.open('delivery-log', { retryDelaysMs: retryTierDelays(50), breaker: { failures: 1000, openMs: 100 } });
});

afterAll(async () => {
  await Promise.all(projections.map((p) => p.stop()));
  await Promise.all(stores.map((s) => s.close()));
  await fixture?.close();
  await postgres?.stop();
});

test('killed mid-run and restarted, the projection has every attempt once, and the rows a rebuild from the topics has', async () => {
  const good = uniquePartnerId('log-good');
  const bad = uniquePartnerId('log-bad');
  await fixture.onboard(good, { endpoint_id: 'main', url: (await fixture.receiver(() => 200)).url });
  await fixture.onboard(bad, { endpoint_id: 'main', url: (await fixture.receiver(() => 500)).url });
  const apiKey = await fixture.partners.create(uniquePartnerId('log-inbound'));
  const ingress = await fixture.startIngress();
  await Promise.all([fixture.startConsumer(), fixture.startSender()]);

  const liveUrl = await database('live');
  const live = await storeAt(liveUrl);
  stores.push(live);
  const first = await startProjection(liveUrl, 'log-live');

  const events = (partner: string, from: number, count: number) =>
    Array.from({ length: count }, (_, i) => policyEvent(partner, {}, { policy_number: `P-${partner}-${from + i}` }));
  await fixture.events.publish([...events(good, 0, 20), ...events(bad, 0, 2)]);
  for (let i = 0; i < 3; i++) expect((await postWebhook(ingress.webhookUrl, apiKey, webhook())).status).toBe(200);
  const attemptRows = async () => (await live.db.selectFrom('delivery_attempts').select('delivery_id').execute()).length;
  await waitFor(async () => (await attemptRows()) > 10, 'the first attempts in the log', 60_000);
  await first.stop('SIGKILL');
  await fixture.events.publish([...events(good, 20, 20), ...events(bad, 2, 1)]);
  await startProjection(liveUrl, 'log-live');

  // Every delivery ends: the good partner's delivered at its first attempt, the bad one's dead-lettered after all nine.
  const states = () => live.db.selectFrom('deliveries').select(['partner_id', 'state', 'attempt_count']).execute();
  await waitFor(
    async () => {
      const rows = await states();
      return rows.length === 43 && rows.every((r) => r.state === (r.partner_id === good ? 'delivered' : 'dead_lettered'));
    },
    'every delivery delivered or dead-lettered in the log',
    90_000,
  );
  const rows = await states();
  expect(rows.filter((r) => r.partner_id === bad).map((r) => r.attempt_count)).toEqual([9, 9, 9]);

  // No gap and no duplicate: one attempt row per callback-outcomes record, by its partition and offset.
  const outcomes = await readTopicToEnd(`${fixture.prefix}${TopicNames.callbackOutcomes}`, fixture.kafka);
  const attempts = await live.db.selectFrom('delivery_attempts').select(['source_partition', 'source_offset']).execute();
  expect(attempts).toHaveLength(outcomes.length);
  expect(new Set(attempts.map((a) => `${a.source_partition}:${a.source_offset}`)).size).toBe(outcomes.length);
  const bads = await live.db
    .selectFrom('delivery_attempts')
    .innerJoin('deliveries', 'deliveries.delivery_id', 'delivery_attempts.delivery_id')
    .where('deliveries.partner_id', '=', bad)
    .where('outcome', '=', 'FAILED_ATTEMPT')
    .select(['delivery_attempts.delivery_id', 'attempt', 'http_status'])
    .orderBy('delivery_attempts.delivery_id')
    .orderBy('recorded_at')
    .execute();
  for (const id of new Set(bads.map((a) => a.delivery_id))) {
    expect(bads.filter((a) => a.delivery_id === id).map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  }
  expect(await live.db.selectFrom('webhooks').select('webhook_id').execute()).toHaveLength(3);

  // A projection built from scratch (a new group, an empty database) out of the same topics writes the same rows.
  const rebuiltUrl = await database('rebuilt');
  const rebuilt = await storeAt(rebuiltUrl);
  stores.push(rebuilt);
  await startProjection(rebuiltUrl, 'log-rebuild');
  const expected = await tableRows(live.db);
  await waitFor(async () => JSON.stringify(await tableRows(rebuilt.db)) === JSON.stringify(expected), 'the rebuilt log', 60_000).catch(
    () => undefined,
  );
  expect(await tableRows(rebuilt.db)).toEqual(expected);
});
