import { ErrorCodes, Refusal } from '@hookstream/errors';
import { REDACTED, RecordedBounds, isCredentialHeader, recordedBody, recordedHeaders } from '../src/domain/refused-request';
import { rejectionOf } from '../src/domain/webhook-rejection';

/** What is kept of a refused request: its headers with credentials redacted, its body, both bounded. */

test('a header named like a credential has its value redacted, in any case; every other is kept as received (x-request-source, x-foo), in order, repeats included', () => {
  const raw = [
    'Host',
    'ingress:8080',
    'X-API-Key',
    'hk_live_the_partner_key',
    'Authorization',
    'Bearer abc.def.ghi',
    'Proxy-Authorization',
    'Basic dXNlcjpwYXNz',
    'Cookie',
    'sid=42',
    'X-Hub-Signature-256',
    'sha256=deadbeef',
    'x-client-secret',
    's3cr3t',
    'X-Auth-Token',
    'tok',
    'X-Session-Id',
    'sess',
    'Content-Type',
    'application/json',
    'Ocp-Apim-Subscription-Key',
    'gateway-key-1',
    'X-Partner-Thing',
    'opaque',
    'x-request-source',
    'erp-batch',
    'x-foo',
    'bar',
    'X-Client-Password',
    'hunter2',
    'X-Forwarded-For',
    '203.0.113.9',
    'X-Forwarded-For',
    '198.51.100.7',
  ];
  const { headers, truncated } = recordedHeaders(raw);
  expect(truncated).toBe(false);
  expect(headers).toEqual([
    { name: 'Host', value: 'ingress:8080' },
    { name: 'X-API-Key', value: REDACTED },
    { name: 'Authorization', value: REDACTED },
    { name: 'Proxy-Authorization', value: REDACTED },
    { name: 'Cookie', value: REDACTED },
    { name: 'X-Hub-Signature-256', value: REDACTED },
    { name: 'x-client-secret', value: REDACTED },
    { name: 'X-Auth-Token', value: REDACTED },
    { name: 'X-Session-Id', value: REDACTED },
    { name: 'Content-Type', value: 'application/json' },
    { name: 'Ocp-Apim-Subscription-Key', value: REDACTED },
    { name: 'X-Partner-Thing', value: 'opaque' },
    { name: 'x-request-source', value: 'erp-batch' },
    { name: 'x-foo', value: 'bar' },
    { name: 'X-Client-Password', value: REDACTED },
    { name: 'X-Forwarded-For', value: '203.0.113.9' },
    { name: 'X-Forwarded-For', value: '198.51.100.7' },
  ]);
  const text = JSON.stringify(headers);
  for (const secret of [
    'hk_live_the_partner_key',
    'abc.def.ghi',
    'dXNlcjpwYXNz',
    'sid=42',
    'deadbeef',
    's3cr3t',
    'gateway-key-1',
    'hunter2',
  ])
    expect(text).not.toContain(secret);
  expect(isCredentialHeader('content-length')).toBe(false);
  expect(isCredentialHeader('X-API_KEY')).toBe(true);
});

test('headers are bounded in count, name and value, and say when they were cut', () => {
  const many = Array.from({ length: RecordedBounds.headers + 20 }, (_, i) => [`x-h${i}`, 'v']).flat();
  const counted = recordedHeaders(many);
  expect(counted.headers).toHaveLength(RecordedBounds.headers);
  expect(counted.truncated).toBe(true);
  const long = recordedHeaders(['user-agent', 'v'.repeat(5000), 'n'.repeat(300), 'short']);
  expect(long.headers[0]!.value).toHaveLength(RecordedBounds.headerValue);
  expect(long.headers[1]!.name).toHaveLength(RecordedBounds.headerName);
  expect(long.truncated).toBe(true);
  // A long credential is redacted, not cut.
  expect(recordedHeaders(['x-api-key', 'k'.repeat(5000)]).headers).toEqual([{ name: 'x-api-key', value: REDACTED }]);
  // A name is judged whole: one that is harmless only once cut to its bound is still redacted.
  const cut = recordedHeaders(['user-agent'.padEnd(RecordedBounds.headerName, ' ') + 'x-token', 'secret-value']);
  expect(cut.headers[0]!.value).toBe(REDACTED);
});

test('the body is kept whole up to 16 KiB, beyond that its first 16 KiB with its size, never a character cut in two', () => {
  expect(recordedBody(undefined)).toEqual({ body: null, body_size: null, body_truncated: false });
  expect(recordedBody(Buffer.from('{"a":"é"}'))).toEqual({ body: '{"a":"é"}', body_size: 10, body_truncated: false });
  // 16383 ASCII bytes then a 3-byte € across the bound: the € is left out, not shown as U+FFFD.
  const cut = Buffer.concat([Buffer.from('a'.repeat(RecordedBounds.bodyBytes - 1)), Buffer.from('€€')]);
  const recorded = recordedBody(cut);
  expect(recorded.body_truncated).toBe(true);
  expect(recorded.body_size).toBe(cut.length);
  expect(recorded.body).toBe('a'.repeat(RecordedBounds.bodyBytes - 1));
  // Exactly at the bound: whole.
  expect(recordedBody(Buffer.alloc(RecordedBounds.bodyBytes, 0x61))).toMatchObject({ body_truncated: false });
  // Not UTF-8: shown with U+FFFD, so it can still be looked at.
  expect(recordedBody(Buffer.from([0x7b, 0xff, 0x7d])).body).toBe('{\uFFFD}');
});

test('a rejection carries each field with its message, the headers redacted and the body', () => {
  const refusal = new Refusal(ErrorCodes.INVALID_PAYLOAD, 'documents[0].url must be absolute; amount is required', {
    fields: [
      { field: 'documents[0].url', message: 'documents[0].url must be absolute' },
      { field: 'amount', message: 'x'.repeat(2000) },
    ],
  });
  const text = '{"documents":[{"url":"ftp://x"}]}';
  const recorded = rejectionOf(
    'acme',
    1,
    refusal,
    { text, parsed: JSON.parse(text) },
    {
      rawHeaders: ['x-api-key', 'hk_secret', 'content-type', 'application/json'],
      bytes: Buffer.from(text),
    },
  );
  expect(recorded.problems).toEqual([
    { field: 'documents[0].url', message: 'documents[0].url must be absolute' },
    { field: 'amount', message: 'x'.repeat(RecordedBounds.problemMessage) },
  ]);
  expect(recorded.request_headers).toEqual([
    { name: 'x-api-key', value: REDACTED },
    { name: 'content-type', value: 'application/json' },
  ]);
  expect(recorded).toMatchObject({ body: text, body_size: text.length, body_truncated: false, headers_truncated: false });
  expect(JSON.stringify(recorded)).not.toContain('hk_secret');
});
