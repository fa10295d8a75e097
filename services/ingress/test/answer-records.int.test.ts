/**
 * Answers recorded for the partner, against a real ingress process, Kafka and registry: a known
 * partner's 400s and 409 land on inbound-rejections (keyed by partner id) with the code, the fields
 * and the message it was answered, the answers being the same as ever; an unknown key's 401 lands
 * nowhere and is only counted; a flood of refusals from one partner is recorded up to its bucket;
 * a webhook repeated with its request_id and payload lands on inbound-replays.
 */
import { AvroCodec, defaultSchemasDir } from '@hookstream/kafka';
import { type InboundRejectionValue, type InboundReplayValue } from '@hookstream/contract';
import { TestFixture } from '../../../test/helpers/fixture';
import { readTopicToEnd, testInfrastructure, waitFor } from '../../../test/helpers/infrastructure';
import { postWebhook, webhook, type RunningIngress } from '../../../test/helpers/ingress';

let fixture: TestFixture;
let ingress: RunningIngress;
let codec: AvroCodec;
let topic: string;
let keyA: string;
let keyB: string;

interface Recorded {
  key: string;
  raw: string;
  value: InboundRejectionValue;
}

/** Every record on inbound-rejections, decoded, once at least `count` are there. */
async function rejections(count: number): Promise<Recorded[]> {
  return waitFor(
    async () => {
      const messages = await readTopicToEnd(topic, fixture.kafka);
      if (messages.length < count) return undefined;
      return Promise.all(
        messages.map(async (m) => ({
          key: m.key!.toString(),
          raw: m.value!.toString('latin1'),
          value: (await codec.decode(m.value!, topic)) as InboundRejectionValue,
        })),
      );
    },
    `${count} records on inbound-rejections`,
    20_000,
  );
}

async function metrics(): Promise<string> {
  return (await fetch(`${ingress.opsUrl}/metrics`)).text();
}

const sample = (text: string, name: string, ...labels: string[]) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(name) && labels.every((l) => line.includes(l)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);

beforeAll(async () => {
  fixture = await TestFixture.open('rejections');
  keyA = await fixture.partners.create('partner-a');
  keyB = await fixture.partners.create('partner-b');
  ingress = await fixture.startIngress();
  topic = `${fixture.prefix}inbound-rejections`;
  codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  await codec.registerTopics([
    { topic, schemaFile: 'inbound-rejection.avsc' },
    { topic: `${fixture.prefix}inbound-replays`, schemaFile: 'inbound-replay.avsc' },
  ]);
  await waitFor(async () => (await postWebhook(ingress.webhookUrl, keyB, webhook())).status === 200, 'partner-b to be known', 15_000);
}, 120_000);

afterAll(() => fixture?.close());

test("a known partner's 400s and 409 are recorded with what it was answered; an unknown key's 401 only counted", async () => {
  const invalidBody = webhook({ request_id: 'rej-400', transaction_number: undefined });
  const invalid = await postWebhook(ingress.webhookUrl, keyA, invalidBody, {
    authorization: 'Bearer another-systems-token',
    'x-trace-id': 't-400',
  });
  expect([invalid.status, invalid.json]).toEqual([
    400,
    { status: 'failed', data: null, code: 400, error_code: 'INVALID_PAYLOAD_VALIDATION_ERR', message: 'transaction_number is required' },
  ]);
  const notJson = await postWebhook(ingress.webhookUrl, keyA, '{"request_id": "rej-json",');
  expect(notJson.status).toBe(400);

  const first = webhook({ request_id: 'rej-409', transaction_number: 'TRX-409' });
  expect((await postWebhook(ingress.webhookUrl, keyA, first)).status).toBe(200);
  const conflict = await postWebhook(ingress.webhookUrl, keyA, { ...first, status: 'POLICY_CANCELLED' });
  expect([conflict.status, conflict.json]).toEqual([
    409,
    {
      status: 'failed',
      data: null,
      code: 409,
      error_code: 'IDEMPOTENCY_KEY_REUSED_ERR',
      message: 'request_id was already used with a different payload',
    },
  ]);

  const before401 = sample(await metrics(), 'hookstream_ingress_requests_total{', 'partner="unknown"', 'status_code="401"');
  const unknown = await postWebhook(ingress.webhookUrl, 'hs_not_a_key', webhook({ request_id: 'rej-401', transaction_number: undefined }));
  expect(unknown.status).toBe(401);

  const records = await rejections(3);
  const byRequest = new Map(records.map((r) => [r.value.request_id, r]));
  expect(byRequest.get('rej-400')).toMatchObject({
    key: 'partner-a',
    value: {
      partner_id: 'partner-a',
      http_status: 400,
      error_code: 'INVALID_PAYLOAD_VALIDATION_ERR',
      message: 'transaction_number is required',
      fields: ['transaction_number'],
      transaction_number: null,
      payload_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      rejection_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    },
  });
  expect(byRequest.get('rej-409')).toMatchObject({
    key: 'partner-a',
    value: { http_status: 409, error_code: 'IDEMPOTENCY_KEY_REUSED_ERR', fields: ['request_id'], transaction_number: 'TRX-409' },
  });
  // The request as it arrived: each field with its message, the headers (credentials redacted), the body.
  const recorded400 = byRequest.get('rej-400')!.value;
  expect(recorded400.problems).toEqual([{ field: 'transaction_number', message: 'transaction_number is required' }]);
  const headerValues = (name: string) => recorded400.request_headers!.filter((h) => h.name.toLowerCase() === name).map((h) => h.value);
  expect(headerValues('x-api-key')).toEqual(['[redacted]']);
  expect(headerValues('authorization')).toEqual(['[redacted]']);
  expect(headerValues('x-trace-id')).toEqual(['t-400']);
  expect(recorded400).toMatchObject({ body: JSON.stringify(invalidBody), body_truncated: false, headers_truncated: false });
  expect(recorded400.body_size).toBe(Buffer.byteLength(JSON.stringify(invalidBody)));
  expect(byRequest.get('rej-409')!.value.problems).toEqual([
    { field: 'request_id', message: 'request_id was already used with a different payload' },
  ]);
  // Not JSON: the message the partner got, nothing read of the body but its text.
  const unreadable = records.find((r) => r.value.request_id === null)!;
  expect(unreadable.value).toMatchObject({
    http_status: 400,
    fields: [],
    problems: [],
    payload_fingerprint: null,
    body: '{"request_id": "rej-json",',
  });
  expect(unreadable.value.message).toBe((notJson.json as { message: string }).message);
  expect(Math.abs(unreadable.value.received_at - Date.now())).toBeLessThan(60_000);

  // The 401 is nowhere on the topic, and no record carries an API key; the 401 is counted.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const all = await rejections(3);
  expect(all).toHaveLength(3);
  expect(all.some((r) => r.raw.includes('rej-401') || r.raw.includes(keyA) || r.raw.includes('hs_not_a_key'))).toBe(false);
  expect(all.some((r) => r.raw.includes('another-systems-token'))).toBe(false);
  const scraped = await metrics();
  expect(sample(scraped, 'hookstream_ingress_requests_total{', 'partner="unknown"', 'status_code="401"')).toBe(before401 + 1);
  expect(sample(scraped, 'hookstream_ingress_rejections_recorded_total')).toBe(3);
});

test("one partner's flood of refusals is recorded up to its burst, the rest counted as dropped; every answer is still a 400", async () => {
  const flood = await Promise.all(
    Array.from({ length: 40 }, (_, i) => postWebhook(ingress.webhookUrl, keyB, webhook({ request_id: `flood-${i}`, status: 7 }))),
  );
  expect(flood.every((answer) => answer.status === 400 && (answer.json as { message: string }).message === 'status must be a string')).toBe(
    true,
  );
  await rejections(3 + 20);
  // A moment more, for any record beyond the bound that would (wrongly) still come.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const ofB = (await rejections(3 + 20)).filter((r) => r.key === 'partner-b');
  // The burst of 20, and perhaps a token or two refilled while the 40 requests were answered.
  expect(ofB.length).toBeGreaterThanOrEqual(20);
  expect(ofB.length).toBeLessThanOrEqual(22);
  expect(ofB.every((r) => r.value.fields.join() === 'status')).toBe(true);
  const scraped = await metrics();
  expect(sample(scraped, 'hookstream_ingress_rejections_dropped_total{', 'reason="partner_limit"')).toBe(40 - ofB.length);
  expect(sample(scraped, 'hookstream_ingress_rejections_dropped_total{', 'reason="publish_failed"')).toBe(0);
});

test('a webhook repeated with its request_id and payload is answered as the first time and recorded on inbound-replays, once per repeat', async () => {
  const original = webhook({ request_id: 'replay-1', transaction_number: 'TRX-REPLAY' });
  const first = await postWebhook(ingress.webhookUrl, keyA, original);
  expect(first.status).toBe(200);
  const repeats = [await postWebhook(ingress.webhookUrl, keyA, original), await postWebhook(ingress.webhookUrl, keyA, original)];
  expect(repeats.map((r) => [r.status, r.json])).toEqual([
    [200, first.json],
    [200, first.json],
  ]);
  const replaysTopic = `${fixture.prefix}inbound-replays`;
  const replays = await waitFor(
    async () => {
      const messages = await readTopicToEnd(replaysTopic, fixture.kafka);
      return messages.length >= 2 ? messages : undefined;
    },
    '2 records on inbound-replays',
    20_000,
  );
  const values = await Promise.all(replays.map(async (m) => (await codec.decode(m.value!, replaysTopic)) as InboundReplayValue));
  expect(replays.map((m) => m.key!.toString())).toEqual(['partner-a', 'partner-a']);
  expect(values.map(({ partner_id, request_id, transaction_number }) => ({ partner_id, request_id, transaction_number }))).toEqual([
    { partner_id: 'partner-a', request_id: 'replay-1', transaction_number: 'TRX-REPLAY' },
    { partner_id: 'partner-a', request_id: 'replay-1', transaction_number: 'TRX-REPLAY' },
  ]);
  expect(new Set(values.map((v) => v.replay_id)).size).toBe(2);
  expect(values.every((v) => /^[0-9a-f]{64}$/.test(v.payload_fingerprint))).toBe(true);
  // Counted once the producer's acknowledgement is handled, which may come after a reader sees the records.
  await waitFor(
    async () => sample(await metrics(), 'hookstream_ingress_replays_recorded_total') === 2 || undefined,
    'both replays counted as recorded',
    10_000,
  );
});
