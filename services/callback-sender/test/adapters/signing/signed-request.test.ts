import { recordableHeaders } from '../../../src/domain/recorded-headers';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { SecretPlaceholders, signedStringOfRequest } from '@hookstream/contract';
import { publicOutboundAuth, secretContext, type OutboundAuth } from '@hookstream/partners';
import { createCallbackSigner, type SignedCallback } from '../../../src/adapters/signing';

/**
 * The signed string the delivery log shows a partner (@hookstream/contract's signedStringOfRequest, rebuilt from
 * the headers as recorded, the body before any MD5 body field, and the auth without its secrets) is
 * exactly what these signers signed: with its placeholders filled in with the secrets, it gives the
 * signature the signer produced. Here, not in the delivery log, because the signers are this
 * service's own sources and no other service may import them.
 */
const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const seal = (field: string, value: string) => box.encrypt(value, secretContext(PARTNER, field));
const API_KEY = 'ak_live_42';
const SECRET = 'shared-secret-7f3a';
const KEY_BYTES = randomBytes(32);
const WHSEC = `whsec_${KEY_BYTES.toString('base64')}`;
// Non-ASCII text, nested and non-string fields: the string must be the UTF-8 text signed, field texts as signed.
const BODY = JSON.stringify({
  policy_number: 'P-1',
  partner_transaction_number: 'PTN-77',
  start_protection_at: '2026-03-01',
  calculation: { gwp: 12.5 },
  policy_holder: { full_name: 'Zoë Ångström 山田' },
});

/** Signs as the sender does (its own headers added after signing), and what is recorded of it. */
async function signAndRecord(auth: OutboundAuth): Promise<{ signed: SignedCallback; signedString: string | null }> {
  const signed = await createCallbackSigner({ partnerId: PARTNER, auth, secrets: box }).sign({
    body: BODY,
    deliveryId: 'dlv_2Xk9',
    now: new Date('2026-03-01T10:20:30.456Z'),
  });
  signed.headers['x-hookstream-delivery-id'] = 'dlv_2Xk9';
  signed.headers['x-hookstream-attempt'] = '3';
  return { signed, signedString: signedStringOfRequest(publicOutboundAuth(auth), recordableHeaders(signed), BODY) };
}

const filled = (text: string) => text.replaceAll(SecretPlaceholders.apiKey, API_KEY).replaceAll(SecretPlaceholders.secret, SECRET);

describe('the signed string rebuilt from what is recorded is the one each signer signed', () => {
  test('HMAC_SHA256: HMAC-SHA256 over it, keyed with the secret, is the signature header; the API key is a placeholder', async () => {
    const auth: OutboundAuth = {
      method: 'HMAC_SHA256',
      api_key: seal('api_key', API_KEY),
      secret: seal('secret', SECRET),
      key_header: 'X-Partner-Key',
      timestamp_header: 'X-Ts',
      signature_header: 'X-Sig',
    };
    const { signed, signedString } = await signAndRecord(auth);
    expect(signedString).toBe(`${SecretPlaceholders.apiKey}|2026-03-01T10:20:30.456Z|${BODY}`);
    expect(createHmac('sha256', SECRET).update(filled(signedString!), 'utf8').digest('base64')).toBe(signed.headers['X-Sig']);
  });

  test('MD5 in a header: MD5 over it with «secret» filled in is the header, each part in order', async () => {
    const auth: OutboundAuth = {
      method: 'MD5',
      secret: seal('secret', SECRET),
      parts: [
        { kind: 'LITERAL', value: 'v1:' },
        { kind: 'SECRET', value: '' },
        { kind: 'BODY_FIELD', value: 'policy_holder.full_name' },
        { kind: 'BODY_FIELD', value: 'calculation' },
        { kind: 'BODY_FIELD', value: 'missing' },
      ],
      placement: 'HEADER',
      target: 'X-Sign',
    };
    const { signed, signedString } = await signAndRecord(auth);
    expect(signedString).toBe(`v1:${SecretPlaceholders.secret}Zoë Ångström 山田{"gwp":12.5}`);
    expect(createHash('md5').update(filled(signedString!), 'utf8').digest('hex')).toBe(signed.headers['X-Sign']);
  });

  test('MD5 in a body field: built from the body without the field, its MD5 is the field the sent body ends with', async () => {
    const auth: OutboundAuth = {
      method: 'MD5',
      secret: seal('secret', SECRET),
      parts: [
        { kind: 'SECRET', value: '' },
        { kind: 'BODY_FIELD', value: 'start_protection_at' },
        { kind: 'BODY_FIELD', value: 'partner_transaction_number' },
      ],
      placement: 'BODY_FIELD',
      target: 'Sign',
    };
    const { signed, signedString } = await signAndRecord(auth);
    expect(signedString).toBe(`${SecretPlaceholders.secret}2026-03-01PTN-77`);
    const sent = JSON.parse(signed.body.toString('utf8')) as { Sign: string };
    expect(createHash('md5').update(filled(signedString!), 'utf8').digest('hex')).toBe(sent.Sign);
  });

  test('STANDARD_WEBHOOKS: HMAC-SHA256 over it, keyed with the base64 after whsec_, is the v1 signature; no secret in the string', async () => {
    const { signed, signedString } = await signAndRecord({ method: 'STANDARD_WEBHOOKS', secret: seal('secret', WHSEC) });
    const timestamp = String(Math.floor(Date.parse('2026-03-01T10:20:30.456Z') / 1000));
    expect(signedString).toBe(`dlv_2Xk9.${timestamp}.${BODY}`);
    expect(`v1,${createHmac('sha256', KEY_BYTES).update(signedString!, 'utf8').digest('base64')}`).toBe(
      signed.headers['webhook-signature'],
    );
  });

  test.each<[string, OutboundAuth]>([
    ['API_KEY', { method: 'API_KEY', header_name: 'X-API-Key', api_key: seal('api_key', API_KEY) }],
    ['BEARER_STATIC', { method: 'BEARER_STATIC', token: seal('token', SECRET) }],
    ['BASIC', { method: 'BASIC', username: 'travelco', password: seal('password', SECRET) }],
    [
      'BEARER_JWT',
      {
        method: 'BEARER_JWT',
        secret: seal('secret', `${SECRET}-long-enough`),
        algorithm: 'HS256',
        issuer: 'HOOKSTREAM',
        lifetime_seconds: 300,
        extra_claims_json: null,
      },
    ],
  ])('%s signs no string: there is none to show', async (_method, auth) => {
    expect((await signAndRecord(auth)).signedString).toBeNull();
  });
});
