/**
 * Avro through the real registry: every schema in schemas/ registers and round-trips in the
 * Confluent wire format; a reader with nothing but the registry decodes the bytes; an
 * incompatible change is refused.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import avro from 'avsc';
import { AvroCodec, registerSubjectSchema, valueSubject } from '../../src/avro/registry-codec';
import { AvroInvalidError, SchemaIncompatibleError } from '@hookstream/errors';
import { defaultSchemasDir, listSchemaFiles, readSchemaFile } from '../../src/avro/schema-files';
import { topicCatalogue } from '../../src/topics';
import { testInfrastructure, uniqueName } from '../../../../test/helpers/infrastructure';

const schemasDir = defaultSchemasDir();

describe('AvroCodec with the registry', () => {
  const { registryUrl } = testInfrastructure();
  const prefix = `${uniqueName('avro')}.`;
  const topics = topicCatalogue({ prefix });
  const codec = new AvroCodec(registryUrl, schemasDir);

  beforeAll(async () => {
    await codec.registerTopics(topics);
  });

  test('every schema file is used by a topic of the catalogue', () => {
    const used = new Set(topics.map((t) => t.schemaFile));
    expect(listSchemaFiles(schemasDir).filter((f) => !used.has(f))).toEqual([]);
  });

  test.each(listSchemaFiles(schemasDir))(
    'when a random valid %s record is encoded, then the Confluent frame holds its id and it decodes to the same value',
    async (file) => {
      const topic = topics.find((t) => t.schemaFile === file)!.topic;
      const type = readSchemaFile(schemasDir, file).type;
      for (let i = 0; i < 5; i++) {
        const value = type.random();
        const bytes = await codec.encode(topic, value);

        expect(bytes[0]).toBe(0);
        expect(bytes.readUInt32BE(1)).toBe(codec.schemaId(topic));
        const decoded = await codec.decode(bytes, topic);
        expect(type.isValid(decoded)).toBe(true);
        expect(type.toBuffer(decoded).equals(type.toBuffer(value))).toBe(true);
      }
    },
  );

  test('when the example policy-status event is encoded, then a reader with only the registry (no Hookstream code) decodes it', async () => {
    const topic = topics.find((t) => t.name === 'policy-status')!.topic;
    const example = JSON.parse(readFileSync(path.join(schemasDir, 'examples', 'policy-status-event.json'), 'utf8'));
    const bytes = await codec.encode(topic, example);

    // What a consumer in another language does: read the id, fetch the writer schema, decode.
    const id = bytes.readUInt32BE(1);
    const response = await fetch(`${registryUrl}/schemas/ids/${id}`);
    const { schema } = (await response.json()) as { schema: string };
    const decoded = avro.Type.forSchema(JSON.parse(schema)).fromBuffer(bytes.subarray(5)) as {
      event_id: string;
      policy: { policy_number: string };
    };
    expect(decoded.event_id).toBe(example.event_id);
    expect(decoded.policy.policy_number).toBe(example.policy.policy_number);
  });

  test('when every topic registers again, then each subject keeps the same id (registration is idempotent)', async () => {
    const again = await new AvroCodec(registryUrl, schemasDir).registerTopics(topics);
    for (const t of topics) expect(again.get(t.topic)).toBe(codec.schemaId(t.topic));
    // Each subject asked for by name: a registry that many tests share lists only some of its subjects at once.
    const statuses = await Promise.all(
      topics.map(async (t) => (await fetch(`${registryUrl}/subjects/${valueSubject(t.topic)}/versions`)).status),
    );
    expect(statuses).toEqual(topics.map(() => 200));
  });

  test('when a value does not fit the schema, then encode refuses it naming the field', async () => {
    const topic = topics.find((t) => t.name === 'partner-events')!.topic;
    await expect(codec.encode(topic, { partner_id: 42 })).rejects.toThrow(AvroInvalidError);
    await expect(codec.encode(topic, { partner_id: 42 })).rejects.toThrow(/partner_id/);
  });

  test('when bytes are not Confluent-framed, then decode refuses them as invalid, not as an outage', async () => {
    await expect(codec.decode(Buffer.from('{"json":"not avro"}'))).rejects.toThrow(AvroInvalidError);
  });

  test('when a subject gets a version that breaks backward compatibility, then the registry refuses it', async () => {
    const subject = valueSubject(uniqueName('compat'));
    const v1 = { type: 'record', name: 'Thing', namespace: 'io.hookstream.test', fields: [{ name: 'id', type: 'string' }] };
    const compatible = { ...v1, fields: [...v1.fields, { name: 'note', type: ['null', 'string'], default: null }] };
    const breaking = { ...v1, fields: [...v1.fields, { name: 'required_new', type: 'string' }] };

    const id1 = await registerSubjectSchema(registryUrl, subject, JSON.stringify(v1));
    const id2 = await registerSubjectSchema(registryUrl, subject, JSON.stringify(compatible));
    expect(id2).not.toBe(id1);
    await expect(registerSubjectSchema(registryUrl, subject, JSON.stringify(breaking))).rejects.toThrow(SchemaIncompatibleError);
    const versions = (await (await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}/versions`)).json()) as number[];
    expect(versions).toHaveLength(2);
  });
});
