import { testInfrastructure, testKafka, uniqueName } from '../../../test/helpers/infrastructure';
import { TestPartners, ensureTopics } from '../../../test/helpers/ingress';
import { POLICY_CONSUMER_ENTRY, PolicyEvents, policyEvent, readTopicUntil, startService } from '../../../test/helpers/outbound';

/**
 * A backlog never wedges the policy-status-consumer: whatever a fetched batch holds, its writes
 * are split under the broker's limit, and an event whose callback request can never be written
 * is dead-lettered with the reason while its partition goes on.
 */
const kafka = testKafka();
const partnerSpec = {
  callback_endpoints: ['primary', 'audit', 'crm'].map((id) => ({ endpoint_id: id, url: `http://127.0.0.1:9/${id}` })),
  outbound_auth: { method: 'API_KEY', api_key: 'k' },
};
type Request = { delivery_id: string; event_id: string };
type DeadLetter = { error_class: string; reason: string; original_value: Buffer; original_offset: number; event_id: string | null };

async function setTopicLimit(topics: string[], maxMessageBytes: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const topic of topics) await admin.setTopicConfigs(topic, [{ name: 'max.message.bytes', value: String(maxMessageBytes) }]);
  } finally {
    await admin.disconnect();
  }
}

test('when 20,000 events wait for the consumer (a backlog of megabyte batches), then every callback request is written exactly once', async () => {
  const prefix = `${uniqueName('backlog')}.`;
  await ensureTopics(prefix);
  const partners = new TestPartners(kafka, prefix, testInfrastructure().registryUrl);
  const events = new PolicyEvents(kafka, prefix);
  try {
    await partners.create('backlog-partner', partnerSpec);
    const count = 20_000;
    // Published before the consumer starts: its first fetches are full 1 MB batches per partition,
    // whose 3 callback requests per event (each larger than the event) far exceed 1 MB per write.
    for (let i = 0; i < count; i += 1000) {
      await events.publish(Array.from({ length: 1000 }, (_, j) => policyEvent('backlog-partner', { version: i + j + 1 })));
    }
    const consumer = await startService(POLICY_CONSUMER_ENTRY, prefix);
    try {
      const requests = await readTopicUntil<Request>(`${prefix}callback-requests`, (records) => records.length >= count * 3, 240_000);
      expect(new Set(requests.map((r) => r.value.delivery_id)).size).toBe(count * 3);
      expect(consumer.output()).not.toContain('transaction failed');
    } finally {
      await consumer.stop();
    }
  } finally {
    await partners.close();
    await events.close();
  }
}, 400_000);

test('when an event’s callback request is larger than the topic accepts, then the event is dead-lettered with the reason and the partition goes on', async () => {
  const prefix = `${uniqueName('too-large')}.`;
  await ensureTopics(prefix);
  // Both outputs at 20 kB: the request does not fit, and neither does a dead letter copying the 30 kB event.
  await setTopicLimit([`${prefix}callback-requests`, `${prefix}policy-status-dlq`], 20_000);
  const partners = new TestPartners(kafka, prefix, testInfrastructure().registryUrl);
  const events = new PolicyEvents(kafka, prefix);
  try {
    await partners.create('large-partner', partnerSpec);
    const huge = policyEvent(
      'large-partner',
      {},
      {
        policy_number: 'POL-HUGE',
        insureds: [{ uuid: 'u-1', type: 'USER', detail: { full_name: 'A', additional_info: { note: 'x'.repeat(30_000) } } }],
      },
    );
    const after = policyEvent('large-partner', {}, { policy_number: 'POL-HUGE' });
    await events.publish([huge]);
    await events.publish([after]);
    const consumer = await startService(POLICY_CONSUMER_ENTRY, prefix);
    try {
      const [dead] = await readTopicUntil<DeadLetter>(`${prefix}policy-status-dlq`, (records) => records.length >= 1, 60_000);
      expect(dead!.value.error_class).toBe('RECORD_TOO_LARGE');
      expect(dead!.value.reason).toMatch(/accepts at most 20000 \(max\.message\.bytes\)/);
      expect(dead!.value.reason).toMatch(/too large to copy here: read it at .*policy-status partition \d+ offset 0/);
      expect(dead!.value.original_value).toHaveLength(0);
      const requests = await readTopicUntil<Request>(`${prefix}callback-requests`, (records) => records.length >= 3, 60_000);
      expect(new Set(requests.map((r) => r.value.event_id)).size).toBe(1);
    } finally {
      await consumer.stop();
    }
  } finally {
    await partners.close();
    await events.close();
  }
}, 180_000);
