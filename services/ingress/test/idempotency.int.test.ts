/**
 * request_id idempotency across ingress replicas and restarts (spec 4.2): two real ingress
 * processes on one Kafka, concurrent duplicates split across them, and a restart of both.
 */
import { randomUUID } from 'node:crypto';
import { AvroCodec, defaultSchemasDir } from '@hookstream/shared';
import { canonicalJson, payloadFingerprint } from '../src/domain/webhook-payload';
import { ledgerKey, ledgerPartition } from '../src/idempotency/ledger-records';
import { TestFixture } from '../../../test/helpers/fixture';
import { testInfrastructure, uniqueName } from '../../../test/helpers/infrastructure';
import { postWebhook, readPartnerEvents, webhook, type RunningIngress } from '../../../test/helpers/ingress';

let fixture: TestFixture;
let apiKey: string;
let replicas: RunningIngress[] = [];

const startReplicas = async () => {
  replicas = await Promise.all([fixture.startIngress(), fixture.startIngress()]);
};

beforeAll(async () => {
  fixture = await TestFixture.open('idem');
  apiKey = await fixture.partners.create('partner-a');
  await startReplicas();
}, 120_000);

afterAll(() => fixture?.close());

const recordsFor = async (requestId: unknown) => (await readPartnerEvents(fixture.prefix)).filter((r) => r.value.request_id === requestId);

describe('request_id idempotency across replicas', () => {
  test('when 50 identical requests arrive at once over two ingress processes, then all get the same 200 body and exactly one record is written', async () => {
    const body = webhook({ request_id: uniqueName('burst') });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => postWebhook(replicas[i % 2]!.webhookUrl, apiKey, body)));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(JSON.parse(responses[0]!.text)).toMatchObject({ status: 'success', request_id: body.request_id });
    expect(await recordsFor(body.request_id)).toHaveLength(1);
  }, 60_000);

  test('when two different payloads race under one request_id over two processes, then one wins everywhere and the other gets 409', async () => {
    const requestId = uniqueName('race');
    const a = webhook({ request_id: requestId, status: 'POLICY_ISSUING' });
    const b = { ...a, status: 'POLICY_ACTIVE' };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postWebhook(replicas[i % 2]!.webhookUrl, apiKey, i % 4 < 2 ? a : b).then((r) => ({ ...r, sent: i % 4 < 2 ? 'a' : 'b' })),
      ),
    );
    const records = await recordsFor(requestId);
    expect(records).toHaveLength(1);
    const winner = records[0]!.value.status === 'POLICY_ISSUING' ? 'a' : 'b';
    for (const r of responses) {
      if (r.sent === winner) expect(r.status).toBe(200);
      else expect(r.json).toMatchObject({ code: 409, error_code: 'IDEMPOTENCY_KEY_REUSED_ERR' });
    }
    expect(new Set(responses.filter((r) => r.status === 200).map((r) => r.text)).size).toBe(1);
  }, 60_000);

  test('when every ingress process restarts, then the same request_id gets the stored response and no second record; a different payload 409', async () => {
    const body = webhook({ request_id: uniqueName('restart') });
    const first = await postWebhook(replicas[0]!.webhookUrl, apiKey, body);
    expect(first.status).toBe(200);

    await Promise.all(replicas.map((r) => r.stop()));
    await startReplicas();

    for (const replica of replicas) {
      const again = await postWebhook(replica.webhookUrl, apiKey, body);
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
    }
    expect((await postWebhook(replicas[1]!.webhookUrl, apiKey, { ...body, status: 'OTHER' })).status).toBe(409);
    expect(await recordsFor(body.request_id)).toHaveLength(1);
  }, 120_000);

  test('when the replica that claimed a request_id died before completing, then a retry after the claim TTL takes over and succeeds once', async () => {
    const body = webhook({ request_id: uniqueName('orphan') });
    // What a replica killed between its claim and its transaction leaves behind: a claim, no completion.
    const topic = `${fixture.prefix}ingress-idempotency`;
    const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
    await codec.registerTopics([{ topic, schemaFile: 'ingress-idempotency-entry.avsc' }]);
    const key = ledgerKey('partner-a', String(body.request_id));
    const claimedAt = Date.now() - 60_000;
    const orphan = await codec.encode(topic, {
      partner_id: 'partner-a',
      request_id: body.request_id,
      state: 'CLAIMED',
      claim_id: randomUUID(),
      claimant_instance: 'a-replica-that-died',
      payload_fingerprint: payloadFingerprint(JSON.parse(canonicalJson(body))),
      claimed_at: claimedAt,
      completed_at: null,
      response_status: null,
      response_body: null,
      partner_event_offset: null,
      expires_at: claimedAt + 86_400_000,
    });
    const admin = fixture.kafka.admin();
    await admin.connect();
    const partitions = (await admin.fetchTopicMetadata({ topics: [topic] }))[0]!.partitions.length;
    await admin.disconnect();
    const producer = fixture.kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: `C:${key}`, value: orphan, partition: ledgerPartition(key, partitions) }] });
    await producer.disconnect();
    await new Promise((r) => setTimeout(r, 1500)); // the replicas read the orphaned claim first

    const response = await postWebhook(replicas[0]!.webhookUrl, apiKey, body);
    expect(response.status).toBe(200);
    expect((await postWebhook(replicas[1]!.webhookUrl, apiKey, body)).text).toBe(response.text);
    expect(await recordsFor(body.request_id)).toHaveLength(1);
  }, 60_000);
});
