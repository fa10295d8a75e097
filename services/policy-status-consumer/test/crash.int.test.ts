import { testInfrastructure, testKafka, uniqueName } from '../../../test/helpers/infrastructure';
import { TestPartners, ensureTopics } from '../../../test/helpers/ingress';
import { POLICY_CONSUMER_ENTRY, PolicyEvents, policyEvent, readTopicUntil, startService } from '../../../test/helpers/outbound';

/**
 * The policy-status-consumer neither loses nor duplicates callback requests when it is killed
 * (SIGKILL, no shutdown) while it is turning events into requests, and then restarted.
 */
const prefix = `${uniqueName('crash')}.`;
const kafka = testKafka();
let partners: TestPartners;
let events: PolicyEvents;

beforeAll(async () => {
  await ensureTopics(prefix);
  partners = new TestPartners(kafka, prefix, testInfrastructure().registryUrl);
  events = new PolicyEvents(kafka, prefix);
}, 60_000);

afterAll(async () => {
  await partners?.close();
  await events?.close();
});

type Request = { delivery_id: string; event_id: string; endpoint_id: string; partner_id: string };

test('when the consumer is killed with SIGKILL mid-run and restarted, then every callback request exists exactly once (by delivery id)', async () => {
  await partners.create('crash-partner', {
    callback_endpoints: [
      { endpoint_id: 'primary', url: 'http://127.0.0.1:9/primary' },
      { endpoint_id: 'audit', url: 'http://127.0.0.1:9/audit' },
    ],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const count = 600;
  const published = Array.from({ length: count }, (_, i) => policyEvent('crash-partner', { version: i + 1 }));
  const first = await startService(POLICY_CONSUMER_ENTRY, prefix);
  // Small batches spread over about 6 s once the consumer runs, so the kill lands while it is working.
  const publishing = (async () => {
    for (let i = 0; i < count; i += 10) {
      await events.publish(published.slice(i, i + 10));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const topic = `${prefix}callback-requests`;
  // Kill once some, but not all, requests are committed.
  const beforeKill = await readTopicUntil<Request>(topic, (records) => records.length >= 100, 60_000);
  await first.stop('SIGKILL');
  expect(beforeKill.length).toBeLessThan(count * 2); // the kill did land mid-run
  await publishing;

  const second = await startService(POLICY_CONSUMER_ENTRY, prefix);
  try {
    // Everything, then 3 s of quiet: a duplicate would arrive right behind.
    let seen = 0;
    let changedAt = Date.now();
    const all = await readTopicUntil<Request>(
      topic,
      (records) => {
        if (records.length !== seen) [seen, changedAt] = [records.length, Date.now()];
        return records.length >= count * 2 && Date.now() - changedAt > 3000;
      },
      120_000,
    );
    const ids = all.map((r) => r.value.delivery_id);
    expect(all).toHaveLength(count * 2);
    expect(new Set(ids).size).toBe(count * 2);
    expect(new Set(all.map((r) => r.value.event_id)).size).toBe(count);
  } finally {
    await second.stop();
  }
}, 240_000);
