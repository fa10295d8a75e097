import { randomBytes } from 'node:crypto';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { secretContext, type OutboundAuth } from '@hookstream/partners';
import { createCallbackSigner } from '../../../src/adapters/signing';
import { REDACTED, recordableExcerpt, recordableHeaders } from '../../../src/domain/recorded-headers';

/**
 * What of a signed callback's headers may be recorded: each signer declares its credential
 * headers, whose values are redacted; every other header keeps its value, a signature included
 * (the partner received it, and it reveals nothing of the secret).
 */
const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const seal = (field: string, value: string) => box.encrypt(value, secretContext(PARTNER, field));
const NOW = new Date('2026-03-01T10:20:30.456Z');
const body = '{"policy_number":"P-1","status":"POLICY_ACTIVE"}';
const API_KEY = 'ak_live_42';
const SECRET = 'shared-secret-of-enough-length-for-any-hs-algorithm-0123456789';
const WHSEC = `whsec_${randomBytes(32).toString('base64')}`;
/** Stands for the value the signer put in the header: a signature is recorded as sent. */
const AS_SENT = '<as sent>';

const signed = (auth: OutboundAuth) =>
  createCallbackSigner({ partnerId: PARTNER, auth, secrets: box }).sign({ body, deliveryId: 'd-1', now: NOW });

const cases: Array<[string, OutboundAuth, Record<string, string>]> = [
  ['API_KEY', { method: 'API_KEY', header_name: 'X-API-Key', api_key: seal('api_key', API_KEY) }, { 'X-API-Key': REDACTED }],
  ['BEARER_STATIC', { method: 'BEARER_STATIC', token: seal('token', SECRET) }, { authorization: REDACTED }],
  ['BASIC', { method: 'BASIC', username: 'travelco', password: seal('password', SECRET) }, { authorization: REDACTED }],
  [
    'BEARER_JWT',
    {
      method: 'BEARER_JWT',
      secret: seal('secret', SECRET),
      algorithm: 'HS256',
      issuer: 'HOOKSTREAM',
      lifetime_seconds: 300,
      extra_claims_json: null,
    },
    { authorization: REDACTED },
  ],
  [
    'HMAC_SHA256',
    {
      method: 'HMAC_SHA256',
      api_key: seal('api_key', API_KEY),
      secret: seal('secret', SECRET),
      key_header: 'X-API-Key',
      timestamp_header: 'X-Timestamp',
      signature_header: 'X-Signature',
    },
    { 'X-API-Key': REDACTED, 'X-Timestamp': NOW.toISOString(), 'X-Signature': AS_SENT },
  ],
  [
    'MD5 in a header',
    { method: 'MD5', secret: seal('secret', SECRET), parts: [{ kind: 'SECRET', value: '' }], placement: 'HEADER', target: 'X-Sign' },
    { 'X-Sign': AS_SENT },
  ],
  [
    'MD5 in a body field',
    { method: 'MD5', secret: seal('secret', SECRET), parts: [{ kind: 'SECRET', value: '' }], placement: 'BODY_FIELD', target: 'Sign' },
    {},
  ],
  [
    'STANDARD_WEBHOOKS',
    { method: 'STANDARD_WEBHOOKS', secret: seal('secret', WHSEC) },
    { 'webhook-id': 'd-1', 'webhook-timestamp': String(Math.floor(NOW.getTime() / 1000)), 'webhook-signature': AS_SENT },
  ],
];

describe('the headers of a signed callback as recorded', () => {
  test.each(cases)(
    '%s: the credentials are "[redacted]", every other header (a signature too) is kept as sent',
    async (_method, auth, expected) => {
      const callback = await signed(auth);
      const recorded = recordableHeaders(callback);
      const sent = Object.fromEntries(
        Object.entries(expected).map(([name, value]) => [name, value === AS_SENT ? callback.headers[name] : value]),
      );
      expect(recorded).toEqual({ 'content-type': 'application/json', ...sent });
      for (const [name, value] of Object.entries(expected))
        if (value === AS_SENT) expect(recorded[name]).toMatch(/^(v1,)?[A-Za-z0-9+/=]{20,}$/);
      // Nothing secret or derived from a secret is left: no key, no secret, no value of a redacted header.
      const text = JSON.stringify(recorded);
      for (const secret of [API_KEY, SECRET, WHSEC]) expect(text).not.toContain(secret);
      for (const [name, value] of Object.entries(callback.headers)) {
        if (recorded[name] === REDACTED) expect(text).not.toContain(value);
      }
    },
  );

  test('headers the sender adds are kept, and one named as a secret-bearing header in another case is redacted too', async () => {
    const callback = await signed(cases[0]![1]);
    callback.headers['x-hookstream-delivery-id'] = 'd-1';
    callback.headers['x-api-key'] = API_KEY;
    expect(recordableHeaders(callback)).toEqual({
      'content-type': 'application/json',
      'X-API-Key': REDACTED,
      'x-api-key': REDACTED,
      'x-hookstream-delivery-id': 'd-1',
    });
  });
});

test('an answer that echoes the request has every credential redacted in its recorded excerpt, and nothing else changed', async () => {
  const basic = await signed({ method: 'BASIC', username: 'travelco', password: seal('password', SECRET) });
  const credential = basic.headers['authorization']!.replace(/^Basic /, '');
  const echo = `{"you_sent":{"authorization":"${basic.headers['authorization']}","raw":"${credential}"},"status":"bad"}`;
  const recorded = recordableExcerpt(echo, basic);
  expect(recorded).not.toContain(credential);
  expect(recorded).toBe(`{"you_sent":{"authorization":"${REDACTED}","raw":"${REDACTED}"},"status":"bad"}`);
  const apiKey = await signed({ method: 'API_KEY', header_name: 'X-API-Key', api_key: seal('api_key', API_KEY) });
  expect(recordableExcerpt(`key=${API_KEY}; ok`, apiKey)).toBe(`key=${REDACTED}; ok`);
  expect(recordableExcerpt('{"status":"received"}', apiKey)).toBe('{"status":"received"}');
});
