import { createHmac, timingSafeEqual } from 'node:crypto';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { secretContext, type OutboundAuth } from '@hookstream/partners';
import { createCallbackSigner } from '../../../src/adapters/signing';

const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const seal = (field: string, value: string) => box.encrypt(value, secretContext(PARTNER, field));

const API_KEY = 'ak_live_42';
const SECRET = 'hmac-shared-secret';
const auth = (names: Partial<Record<'key_header' | 'timestamp_header' | 'signature_header', string>> = {}): OutboundAuth => ({
  method: 'HMAC_SHA256',
  api_key: seal('api_key', API_KEY),
  secret: seal('secret', SECRET),
  key_header: names.key_header ?? 'X-API-Key',
  timestamp_header: names.timestamp_header ?? 'X-Timestamp',
  signature_header: names.signature_header ?? 'X-Signature',
});

/** Spec 5.1 verification, written from the spec and not from the signer. */
function verifiedByHand(headers: Record<string, string>, rawBody: Buffer, names = ['X-API-Key', 'X-Timestamp', 'X-Signature']) {
  const [keyHeader, timestampHeader, signatureHeader] = names as [string, string, string];
  const message = Buffer.concat([Buffer.from(`${headers[keyHeader]}|${headers[timestampHeader]}|`), rawBody]);
  const expected = createHmac('sha256', SECRET).update(message).digest();
  const received = Buffer.from(headers[signatureHeader] ?? '', 'base64');
  return received.length === expected.length && timingSafeEqual(received, expected);
}

// Non-ASCII text: the signature must cover the UTF-8 bytes sent, not UTF-16 code units.
const body = JSON.stringify({ policy_number: 'P-1', status: 'POLICY_ACTIVE', policy_holder: { full_name: 'Zoë Ångström 山田' } });

describe('HMAC_SHA256 signing (spec 5.1)', () => {
  test('when a callback is signed, then the API key, the UTC ISO timestamp and a signature over the exact bytes sent are in the headers', async () => {
    const now = new Date('2026-03-01T10:20:30.456Z');
    const signed = await createCallbackSigner({ partnerId: PARTNER, auth: auth(), secrets: box }).sign({ body, deliveryId: 'd-1', now });

    expect(signed.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(signed.headers).toEqual({
      'content-type': 'application/json',
      'X-API-Key': API_KEY,
      'X-Timestamp': '2026-03-01T10:20:30.456Z',
      'X-Signature': expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
    });
    expect(verifiedByHand(signed.headers, signed.body)).toBe(true);
    expect(verifiedByHand(signed.headers, Buffer.from(body.replace('P-1', 'P-2')))).toBe(false);
    expect(JSON.stringify(signed.headers)).not.toContain(SECRET);
  });

  test('when the partner agreed other header names, then those carry the key, timestamp and signature', async () => {
    const names = { key_header: 'x-partner-key', timestamp_header: 'x-ts', signature_header: 'x-sig' };
    const signed = await createCallbackSigner({ partnerId: PARTNER, auth: auth(names), secrets: box }).sign({
      body,
      deliveryId: 'd-1',
      now: new Date(),
    });
    expect(Object.keys(signed.headers).sort()).toEqual(['content-type', 'x-partner-key', 'x-sig', 'x-ts']);
    expect(verifiedByHand(signed.headers, signed.body, ['x-partner-key', 'x-ts', 'x-sig'])).toBe(true);
  });

  test('when the same delivery is signed for two attempts, then each has its own timestamp and signature', async () => {
    const signer = createCallbackSigner({ partnerId: PARTNER, auth: auth(), secrets: box });
    const first = await signer.sign({ body, deliveryId: 'd-1', now: new Date('2026-03-01T10:00:00.000Z') });
    const retry = await signer.sign({ body, deliveryId: 'd-1', now: new Date('2026-03-01T10:00:05.000Z') });
    expect(retry.headers['X-Timestamp']).toBe('2026-03-01T10:00:05.000Z');
    expect(retry.headers['X-Signature']).not.toBe(first.headers['X-Signature']);
    expect(verifiedByHand(first.headers, first.body) && verifiedByHand(retry.headers, retry.body)).toBe(true);
  });
});
