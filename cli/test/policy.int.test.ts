/**
 * `hookstream policy publish` as a process against the real broker and registry: an event
 * published by the CLI is read back from the topic and decoded through the registry; a refused
 * event names its fields, exits 2 and leaves the topic untouched.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AvroCodec, defaultSchemasDir, type Kafka } from '@hookstream/kafka';
import { buildCallbackBody, parsePolicyEventJson, policyStatusEventType, type PolicyStatusEventValue } from '@hookstream/contract';
import { sleep } from '@hookstream/runtime';
import { createTopics, testInfrastructure, testKafka, uniqueName, waitFor } from '../../test/helpers/infrastructure';
import { runCli } from '../../test/helpers/processes';

/** The schema example, typed as far as these tests read it. */
type ExampleEvent = Record<string, unknown> & { event_id: string; policy: Record<string, unknown> & { insureds: unknown[] } };
const examplePath = path.join(defaultSchemasDir(), 'examples', 'policy-status-event.json');
const example = JSON.parse(readFileSync(examplePath, 'utf8')) as ExampleEvent;
const eventType = policyStatusEventType();

/** Records as plain JSON values (avsc decodes into class instances). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

/** What a consumer decodes for `input`: every optional field present, null when absent. */
const decodedForm = (input: unknown) => plain(eventType.fromBuffer(eventType.toBuffer(parsePolicyEventJson(input))));

function tempFile(content: string): string {
  const file = path.join(tmpdir(), `${uniqueName('policy-event')}.json`);
  writeFileSync(file, content);
  return file;
}

describe('hookstream policy publish', () => {
  const prefix = `${uniqueName('policy')}.`;
  const topic = `${prefix}policy-status`;
  const env = { ...process.env, TOPIC_PREFIX: prefix };
  let kafka: Kafka;
  let codec: AvroCodec;

  /** Sum of the end offsets of every partition. */
  const endOffsets = async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets.reduce((sum, p) => sum + Number(p.high), 0);
    } finally {
      await admin.disconnect();
    }
  };

  /** The record at partition/offset, its value decoded through the registry. */
  const readBack = async (partition: number, offset: string) => {
    const consumer = kafka.consumer({ groupId: uniqueName('policy-read'), fromBeginning: true });
    const seen: Array<{ partition: number; offset: string; key: string | undefined; value: Buffer | null }> = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic] });
      await consumer.run({
        eachMessage: async ({ partition: p, message }) =>
          void seen.push({ partition: p, offset: message.offset, key: message.key?.toString(), value: message.value }),
      });
      const record = await waitFor(
        () => seen.find((r) => r.partition === partition && r.offset === offset),
        `record ${partition}@${offset}`,
      );
      return { key: record.key, value: plain(await codec.decode(record.value!, topic)) };
    } finally {
      await consumer.disconnect();
    }
  };

  beforeAll(async () => {
    kafka = testKafka();
    await createTopics(kafka, [{ topic, partitions: 3 }]);
    codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
    await codec.registerTopics([{ topic, schemaFile: 'policy-status-event.avsc' }]);
  });

  test('when the schema example is published from a file, then the topic holds it keyed by policy_number, equal after decoding through the registry', async () => {
    const result = await runCli(['policy', 'publish', '--file', examplePath, '--json'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const published = JSON.parse(result.stdout) as { partition: number; offset: string } & Record<string, unknown>;
    expect(published).toEqual({
      event_id: example.event_id,
      policy_number: 'HS-GDG-2026-000123',
      version: 3,
      topic,
      partition: expect.any(Number),
      offset: expect.stringMatching(/^\d+$/),
    });

    const record = await readBack(published.partition, published.offset);
    expect(record.key).toBe('HS-GDG-2026-000123');
    expect(record.value).toEqual(decodedForm(example));
  }, 120_000);

  test('when a plain contract event comes on standard input, then it is published in the avsc form and its FULL body is the input policy', async () => {
    const policy = {
      policy_number: `HS-STDIN-${uniqueName('p')}`,
      status: 'POLICY_ISSUING',
      start_protection_at: '2026-03-01T00:00:00+07:00',
      insureds: [
        { type: 'USER', detail: { full_name: 'Siti Rahmawati', age: 35, additional_info: { loyalty_tier: 'GOLD' } } },
        { type: 'EXPERIENCE', detail: { venue: 'Ubud', tickets: 2 } },
      ],
    };
    const input = { partner_id: 'acme-phones', version: 1, occurred_at: '2026-03-01T08:00:00+07:00', policy };
    const result = await runCli(['policy', 'publish'], { env, input: JSON.stringify(input) });
    expect(result.code).toBe(0);
    const match = /^published event ([0-9a-f-]{36}) \(policy (\S+) version 1\) to (\S+)\[(\d+)\]@(\d+)\n$/.exec(result.stdout);
    expect(match).not.toBeNull();
    const [, eventId, policyNumber, topicName, partition, offset] = match!;
    expect(policyNumber).toBe(policy.policy_number);
    expect(topicName).toBe(topic);

    const record = await readBack(Number(partition), offset!);
    expect(record.key).toBe(policy.policy_number);
    expect(record.value).toEqual(decodedForm({ ...input, event_id: eventId }));
    const value = record.value as PolicyStatusEventValue;
    expect(value.occurred_at).toBe(Date.parse('2026-03-01T01:00:00Z'));
    expect(value.policy.insureds![0]!.detail).toEqual({
      'io.hookstream.v1.PersonDetail': expect.objectContaining({
        full_name: 'Siti Rahmawati',
        age: 35,
        additional_info: '{"loyalty_tier":"GOLD"}',
      }),
    });
    const body = buildCallbackBody(value.policy, { shape: 'FULL', rules: [], signature_field: null, absent_fields: 'OMIT' });
    expect(body).toBe(JSON.stringify(policy));
  }, 120_000);

  test('when the event is invalid, then every problem is named with its field, the exit code is 2 and nothing is published', async () => {
    const before = await endOffsets();
    const invalid = {
      ...example,
      policy: {
        ...example.policy,
        status: 'ACTIVE',
        insureds: [example.policy.insureds[0], { type: 'GADGET', detail: { brand: 'Samsung', price: '12499000', colour: 'black' } }],
      },
    };
    const result = await runCli(['policy', 'publish', '--file', tempFile(JSON.stringify(invalid))], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('policy.status: must be one of POLICY_ISSUING, POLICY_ACTIVE, POLICY_CANCELLED');
    expect(result.stderr).toContain('policy.insureds[1].detail.price: must be a number');
    expect(result.stderr).toContain('policy.insureds[1].detail.colour: unknown field');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    await sleep(100);
    expect(await endOffsets()).toBe(before);
  }, 60_000);

  test.each([
    ['malformed JSON', '{"partner_id": "acme",', /is not valid JSON/],
    ['an empty file', '', /is empty/],
  ])('when the file holds %s, then it exits 2 with a clear message and publishes nothing', async (_what, content, message) => {
    const before = await endOffsets();
    const result = await runCli(['policy', 'publish', '--file', tempFile(content)], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await endOffsets()).toBe(before);
  });

  test('when Kafka cannot be reached, then it fails in seconds with exit 1, saying nothing was published', async () => {
    const started = Date.now();
    const result = await runCli(['policy', 'publish', '--file', examplePath], { env: { ...env, KAFKA_BROKERS: '127.0.0.1:1' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not connect to Kafka at 127\.0\.0\.1:1 .*nothing was published/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);
});
