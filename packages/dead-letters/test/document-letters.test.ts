import { type AvroCodec } from '@hookstream/kafka';
import { AvroInvalidError } from '@hookstream/errors';
import type { DlqRecord } from '../src/read/dead-letter';
import { DocumentLetters } from '../src/read/document-letters';

/** A codec whose values are JSON text; anything else is an undecodable record. */
const codec = {
  decode: (value: Buffer) => {
    try {
      return Promise.resolve(JSON.parse(value.toString('utf8')) as unknown);
    } catch {
      return Promise.reject(new AvroInvalidError('not a Confluent-framed Avro value'));
    }
  },
} as unknown as AvroCodec;
const letters = new DocumentLetters({ codec, topicName: (logical) => `p.${logical}` });

const request = {
  document_id: 'doc-1',
  document_index: 0,
  partner_id: 'acme',
  request_id: 'req-1',
  transaction_number: 'TX-1',
  transaction_type: 'CLAIM',
  document_type: 'CLAIM_FORM',
  source_url: 'https://docs.acme.example/form.pdf',
  filename: null,
  received_at: 1_000,
};

function record(value: Buffer | null, headers: Record<string, string>): DlqRecord {
  return {
    partition: 1,
    offset: '7',
    timestamp: 5_000,
    key: Buffer.from('doc-1'),
    value,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v)])),
  };
}

const headers = {
  'hookstream-partner-id': 'acme',
  'hookstream-attempts': '5',
  'hookstream-original-topic': 'p.partner-events',
  'hookstream-original-partition': '2',
  'hookstream-original-offset': '40',
  'hookstream-due-at': '0',
  'kafka_dlt-exception-fqcn': 'HTTP_STATUS',
  'kafka_dlt-exception-message': 'HTTP 503 (after 5 attempts)',
};

test('when a document dead letter decodes, then the view has its document, webhook, failure and replays', async () => {
  const letter = await letters.decode(record(Buffer.from(JSON.stringify(request)), { ...headers, 'hookstream-replay-count': '1' }));
  expect(letter).toMatchObject({
    source: 'document-dlq',
    partnerId: 'acme',
    deliveryId: 'doc-1',
    policyNumber: 'TX-1',
    eventId: 'req-1',
    endpointId: 'CLAIM_FORM',
    attempts: 5,
    lastHttpStatus: 503,
    errorClass: 'HTTP_STATUS',
    replayCount: 1,
    undecodable: null,
    unreplayable: null,
  });
});

test('when it is replayed, then the same value goes to document-retry-1 with where it was first read and the new replay count, without a due time', async () => {
  const r = record(Buffer.from(JSON.stringify(request)), headers);
  const message = letters.requeue(await letters.decode(r), r, { replayCount: 2, replayId: 'run-1' });
  expect(letters.target).toBe('document-retry-1');
  expect([message.key, message.value]).toEqual([r.key, r.value]);
  expect(message.headers).toEqual({
    'hookstream-original-topic': 'p.partner-events',
    'hookstream-original-partition': '2',
    'hookstream-original-offset': '40',
    'hookstream-replay-count': '2',
    'hookstream-replay-id': 'run-1',
    'hookstream-replayed-from': 'document-dlq 1:7',
  });
});

test('when the value cannot be decoded, then the view says so and it cannot be replayed', async () => {
  const letter = await letters.decode(record(Buffer.from('\u0000garbage'), headers));
  expect(letter.undecodable).toContain('not a Confluent-framed Avro value');
  expect(letter.unreplayable).toContain('cannot be decoded');
  expect((await letters.details(letter, record(Buffer.from('x'), headers), undefined)).bodies[0]!.note).toContain('cannot be decoded');
});
