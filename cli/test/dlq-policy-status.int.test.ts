/**
 * `hookstream dlq --topic policy-status` on the shared stack with the real services: an event for a
 * partner not yet onboarded is dead-lettered (UNKNOWN_PARTNER); once the partner is onboarded, a
 * replay re-publishes the original event and the partner gets its callback, once.
 */
import { waitFor } from '../../test/helpers/infrastructure';
import { policyEvent, readTopicUntil } from '../../test/helpers/outbound';
import { OutboundFixture, uniquePartnerId } from '../../test/helpers/outbound-fixture';
import { dlqJson, endOffsets, type Listing, type ReplayAnswer } from './dlq-cli';

let outbound: OutboundFixture;

beforeAll(async () => {
  // Events for an unknown partner wait 200 ms for it, not 5 s, before they are dead-lettered.
  outbound = await OutboundFixture.open('dlq-ps', { env: { UNKNOWN_PARTNER_GRACE_MS: '200' } });
  await Promise.all([outbound.startConsumer(), outbound.startSender()]);
}, 120_000);

afterAll(() => outbound?.close());

type Shown = { bodies: Array<{ body: string | null; note: string }>; dead_letter: { error_class: string } };

test('when a partner is onboarded after its event was dead-lettered, then replaying the dead letter delivers its callback once, and again nothing', async () => {
  const partnerId = uniquePartnerId('late');
  const event = policyEvent(partnerId);
  await outbound.events.publish([event]);
  const filters = ['--topic', 'policy-status', '--partner', partnerId];
  const [letter] = await waitFor(
    async () => {
      const listing = await dlqJson<Listing>(outbound.prefix, ['list', ...filters]);
      return listing.selected === 1 && listing.dead_letters;
    },
    'the dead letter of the unknown partner',
    60_000,
  );
  expect(letter).toMatchObject({
    topic: 'policy-status-dlq',
    policy_number: event.policy.policy_number,
    policy_status: 'POLICY_ACTIVE',
    error_class: 'UNKNOWN_PARTNER',
    replayed: false,
  });
  const before = await dlqJson<Shown>(outbound.prefix, ['show', '--topic', 'policy-status', letter!.event_id!]);
  expect(before.bodies[0]!.note).toContain('not in partner-config');

  const receiver = await outbound.receiver(() => 200);
  await outbound.onboard(partnerId, { url: `${receiver.url}/cb` });
  const after = await dlqJson<Shown>(outbound.prefix, ['show', '--topic', 'policy-status', letter!.event_id!]);
  expect(JSON.parse(after.bodies[0]!.body!)).toMatchObject({ policy_number: event.policy.policy_number, status: 'POLICY_ACTIVE' });
  expect(after.bodies[0]!.note).toContain("built now with the partner's current mapping");

  const replay = await dlqJson<ReplayAnswer>(outbound.prefix, ['replay', ...filters, '--reason', 'partner onboarded late', '--yes']);
  expect(replay.counts).toMatchObject({ replayed: 1, failed: 0 });
  await waitFor(() => receiver.requests.length >= 1, 'the callback of the replayed event', 60_000);
  expect(receiver.requests[0]!.headers['x-hookstream-event-id']).toBe(letter!.event_id);
  await readTopicUntil<{ event_id: string; outcome: string }>(`${outbound.prefix}callback-outcomes`, (records) =>
    records.some((r) => r.value.event_id === letter!.event_id && r.value.outcome === 'DELIVERED'),
  );

  const published = await endOffsets(outbound.kafka, [`${outbound.prefix}policy-status`]);
  const again = await dlqJson<ReplayAnswer>(outbound.prefix, ['replay', ...filters, '--reason', 'twice', '--yes']);
  expect(again.counts).toMatchObject({ replayed: 0, 'skipped-already-replayed': 1 });
  expect(await endOffsets(outbound.kafka, [`${outbound.prefix}policy-status`])).toEqual(published);

  const audit = await dlqJson<Array<Record<string, unknown>>>(outbound.prefix, ['audit', '--topic', 'policy-status']);
  expect(audit.map((e) => [e.outcome, e.delivery_id, e.source_topic, e.target_topic])).toEqual([
    ['replayed', letter!.event_id, 'policy-status-dlq', 'policy-status'],
    ['skipped-already-replayed', letter!.event_id, 'policy-status-dlq', 'policy-status'],
  ]);
  expect(receiver.requests).toHaveLength(1);
}, 180_000);
