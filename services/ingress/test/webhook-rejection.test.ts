import { ErrorCodes, Refusal } from '@hookstream/errors';
import { payloadFingerprint } from '../src/domain/payload-fingerprint';
import { rejectionOf } from '../src/domain/webhook-rejection';

/** What a rejection records of a refused request: what the partner was told, and what could be read of the body, within bounds. */

/** A refusal whose fields are the given paths (what is recorded of a field is its path). */
const refused = (
  code: typeof ErrorCodes.INVALID_PAYLOAD | typeof ErrorCodes.IDEMPOTENCY_KEY_REUSED,
  message: string,
  paths: string[] = [],
) => new Refusal(code, message, { fields: paths.map((field) => ({ field, message })) });

const refusal = refused(
  ErrorCodes.INVALID_PAYLOAD,
  'transaction_number is required; documents[0].url must be an absolute http or https URL',
  ['transaction_number', 'documents[0].url'],
);

test('a body refused for its fields: the answer, the fields named, request_id and transaction_number when strings, the fingerprint', () => {
  const parsed = { request_id: 'req-7', transaction_number: 42, documents: [{ url: 'ftp://x' }], api_key: 'never recorded' };
  const text = JSON.stringify(parsed);
  const recorded = rejectionOf('acme', 1000, refusal, { text, parsed });
  expect(recorded).toEqual({
    partner_id: 'acme',
    received_at: 1000,
    http_status: 400,
    error_code: 'INVALID_PAYLOAD_VALIDATION_ERR',
    message: refusal.message,
    fields: ['transaction_number', 'documents[0].url'],
    request_id: 'req-7',
    transaction_number: null,
    payload_fingerprint: payloadFingerprint(parsed, text),
    problems: refusal.fields.map(({ field, message }) => ({ field, message })),
    request_headers: [],
    headers_truncated: false,
    body: null,
    body_size: null,
    body_truncated: false,
  });
  expect(JSON.stringify(recorded)).not.toContain('never recorded');
});

test('a 409 keeps the fingerprint the ingress computed; a body that is not JSON has none, nor identifiers', () => {
  const conflict = refused(ErrorCodes.IDEMPOTENCY_KEY_REUSED, 'reused', ['request_id']);
  const parsed = { request_id: 'r', transaction_number: 'T-1' };
  expect(rejectionOf('acme', 1, conflict, { text: '{}', parsed, fingerprint: 'abc' })).toMatchObject({
    http_status: 409,
    fields: ['request_id'],
    request_id: 'r',
    transaction_number: 'T-1',
    payload_fingerprint: 'abc',
  });
  const notJson = refused(ErrorCodes.INVALID_PAYLOAD, 'the body is not valid JSON');
  expect(rejectionOf('acme', 1, notJson, { text: '{"request_id":' })).toMatchObject({
    fields: [],
    request_id: null,
    transaction_number: null,
    payload_fingerprint: null,
  });
  expect(rejectionOf('acme', 1, notJson)).toMatchObject({ request_id: null, payload_fingerprint: null });
  // JSON, but not an object: a fingerprint, no identifiers.
  expect(rejectionOf('acme', 1, refusal, { text: '["req"]', parsed: ['req'] })).toMatchObject({
    request_id: null,
    payload_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
});

test('what comes from the body is bounded: the message and field paths cut, at most 50 fields, over-long or ill-formed identifiers left out', () => {
  const long = 'x'.repeat(10_000);
  const recorded = rejectionOf(
    'acme',
    1,
    refused(
      ErrorCodes.INVALID_PAYLOAD,
      `${long} is not allowed`,
      Array.from({ length: 80 }, (_, i) => `${long}${i}`),
    ),
    { text: '{}', parsed: { request_id: 'r'.repeat(201), transaction_number: 'T\ud800' }, fingerprint: 'f' },
  );
  expect(recorded.message).toHaveLength(2000);
  expect(recorded.fields).toHaveLength(50);
  expect(recorded.fields.every((f) => f.length === 200)).toBe(true);
  expect(recorded.request_id).toBeNull();
  expect(recorded.transaction_number).toBeNull();
  // A cut through a surrogate pair leaves valid Unicode (Avro strings are UTF-8).
  const emoji = rejectionOf('acme', 1, refused(ErrorCodes.INVALID_PAYLOAD, `${'a'.repeat(1999)}😀`));
  expect(emoji.message.isWellFormed()).toBe(true);
});
