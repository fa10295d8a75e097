import { type AvroCodec } from '@hookstream/kafka';
import { AvroInvalidError } from '@hookstream/errors';
import { CallbackLetters } from '../src/read/callback-letters';
import type { DlqRecord } from '../src/read/dead-letter';

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
const letters = new CallbackLetters({ codec, topicName: (logical) => `p.${logical}` });

const request = {
  delivery_id: 'delivery-1',
  event_id: 'event-1',
  partner_id: 'acme',
  endpoint_id: 'ep-1',
  policy_number: 'POL-1',
  policy_version: 3,
  policy_status: 'POLICY_ACTIVE',
  body: '{"policy_number":"POL-1"}',
  created_at: 1_000,
};

function record(value: Buffer | null, headers: Record<string, string>): DlqRecord {
  return {
    partition: 2,
    offset: '41',
    timestamp: 5_000,
    key: Buffer.from('POL-1'),
    value,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v)])),
  };
}

const deadLetterHeaders = {
  'hookstream-partner-id': 'acme',
  'hookstream-endpoint-id': 'ep-1',
  'hookstream-policy-version': '3',
  'hookstream-delivery-id': 'delivery-1',
  'hookstream-attempts': '9',
  'hookstream-last-error': '9 attempts failed; the last: HTTP 503',
  'kafka_dlt-exception-fqcn': 'HTTP_STATUS',
  'kafka_dlt-exception-message': '9 attempts failed; the last: HTTP 503',
};

test('when a dead letter decodes, then the view has its delivery, the failure from its headers and the replays it carries', async () => {
  const letter = await letters.decode(
    record(Buffer.from(JSON.stringify(request)), { ...deadLetterHeaders, 'hookstream-replay-count': '2' }),
  );
  expect(letter).toMatchObject({
    source: 'callback-dlq',
    partition: 2,
    offset: '41',
    deadLetteredAt: 5_000,
    partnerId: 'acme',
    policyNumber: 'POL-1',
    policyStatus: 'POLICY_ACTIVE',
    policyVersion: 3,
    deliveryId: 'delivery-1',
    attempts: 9,
    lastHttpStatus: 503,
    errorClass: 'HTTP_STATUS',
    replayCount: 2,
    createdAt: 1_000,
    undecodable: null,
    unreplayable: null,
  });
});

test('when the failure was no HTTP answer, then there is no last status', async () => {
  const headers = {
    ...deadLetterHeaders,
    'kafka_dlt-exception-fqcn': 'TIMEOUT',
    'kafka_dlt-exception-message': '9 attempts failed; the last: TIMEOUT: 2000 ms',
  };
  const letter = await letters.decode(record(Buffer.from(JSON.stringify(request)), headers));
  expect(letter).toMatchObject({ lastHttpStatus: null, errorClass: 'TIMEOUT' });
});

test('when the value cannot be decoded, then the view says so, keeps what the headers tell, and cannot be replayed', async () => {
  const letter = await letters.decode(record(Buffer.from('garbage'), { ...deadLetterHeaders, 'kafka_dlt-exception-fqcn': 'DECODE_ERROR' }));
  expect(letter.undecodable).toContain('not a Confluent-framed Avro value');
  expect(letter.unreplayable).toContain('dlq export --raw');
  expect(letter).toMatchObject({ partnerId: 'acme', deliveryId: 'delivery-1', policyNumber: 'POL-1', errorClass: 'DECODE_ERROR' });
});

test('when re-queued, then the record is the same value and key with a fresh history: the ordering headers and the replay count only', async () => {
  const stored = record(Buffer.from(JSON.stringify(request)), deadLetterHeaders);
  const letter = await letters.decode(stored);
  const message = letters.requeue(letter, stored, { replayCount: 1, replayId: 'run-1' });
  expect(message.value).toBe(stored.value);
  expect(message.key).toBe(stored.key);
  expect(message.headers).toEqual({
    'hookstream-partner-id': 'acme',
    'hookstream-endpoint-id': 'ep-1',
    'hookstream-policy-version': '3',
    'hookstream-replay-count': '1',
    'hookstream-replay-id': 'run-1',
    'hookstream-replayed-from': 'callback-dlq 2:41',
  });
});
