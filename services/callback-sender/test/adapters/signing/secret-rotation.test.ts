/*
 * A partner's signing-secret rotation as the sender signs through it: Standard Webhooks carries both
 * signatures during the overlap (the official verifier accepts either secret), then only the new
 * one; HMAC_SHA256 keeps its one X-Signature on the old secret until the switch, then on the new.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { activateSigningSecret, rotateSigningSecret, secretContext, type OutboundAuth, type Partner } from '@hookstream/partners';
import { createCallbackSigner } from '../../../src/adapters/signing';

const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const seal = (field: string, value: string) => box.encrypt(value, secretContext(PARTNER, field));
const OLD_WHSEC = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-28T10:00:00Z');
const payload = { policy_number: 'P-1', status: 'POLICY_ACTIVE' };
const body = JSON.stringify(payload);

const partnerWith = (auth: OutboundAuth): Partner => ({
  partner_id: PARTNER,
  name: 'Acme',
  status: 'ACTIVE',
  revision: 1,
  updated_at: T0,
  api_keys: [],
  callback_endpoints: [],
  outbound_auth: auth,
  body_mapping: { shape: 'FULL', rules: [], signature_field: null, absent_fields: 'OMIT' },
});
const sign = (partner: Partner, at: number) =>
  createCallbackSigner({ partnerId: PARTNER, auth: partner.outbound_auth!, secrets: box }).sign({
    body,
    deliveryId: 'dlv_1',
    now: new Date(at),
  });
/** The official verifier, with the clock of the attempt (it refuses a timestamp 5 minutes from its own now). */
const verifies = (secret: string, headers: Record<string, string>, at: number) => {
  jest.useFakeTimers({ now: at, doNotFake: ['nextTick', 'setImmediate'] });
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    jest.useRealTimers();
  }
};

describe('Standard Webhooks secret rotation', () => {
  const before = partnerWith({ method: 'STANDARD_WEBHOOKS', secret: seal('secret', OLD_WHSEC) });
  const rotated = rotateSigningSecret(before, 24 * HOUR, { box, now: T0 });

  test('when rotated, then the new secret is whsec_ base64, the old one is sealed under previous_secret, and the overlap ends 24 h later', () => {
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.state).toEqual({ method: 'STANDARD_WEBHOOKS', previous_secret_until: T0 + 24 * HOUR });
    const auth = rotated.partner.outbound_auth as Extract<OutboundAuth, { method: 'STANDARD_WEBHOOKS' }>;
    expect(box.decrypt(auth.previous_secret!, secretContext(PARTNER, 'previous_secret'))).toBe(OLD_WHSEC);
    expect(box.decrypt(auth.secret, secretContext(PARTNER, 'secret'))).toBe(rotated.secret);
    expect(rotated.partner.revision).toBe(2);
    // Nothing in the record is the plaintext.
    expect(JSON.stringify(rotated.partner)).not.toContain(rotated.secret.slice(6));
  });

  test('during the overlap, a callback carries two signatures and the official verifier accepts it under the old and the new secret', async () => {
    const at = T0 + HOUR;
    const signed = await sign(rotated.partner, at);
    expect(signed.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifies(rotated.secret, signed.headers, at)).toEqual(payload);
    expect(verifies(OLD_WHSEC, signed.headers, at)).toEqual(payload);
  });

  test('when rotated again during the overlap (its first answer lost, say), then the oldest secret keeps signing until its own end, beside the newest', async () => {
    const again = rotateSigningSecret(rotated.partner, 24 * HOUR, { box, now: T0 + HOUR });
    expect(again.state).toEqual({ method: 'STANDARD_WEBHOOKS', previous_secret_until: T0 + 24 * HOUR });
    const at = T0 + 2 * HOUR;
    const signed = await sign(again.partner, at);
    expect(signed.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifies(OLD_WHSEC, signed.headers, at)).toEqual(payload);
    expect(verifies(again.secret, signed.headers, at)).toEqual(payload);
    // The secret of the rotation in between never reached a verifier that the answer lost: it signs no more.
    expect(() => verifies(rotated.secret, signed.headers, at)).toThrow(/No matching signature/);
  });

  test('after the overlap, only the new secret signs: the old one is refused', async () => {
    const at = T0 + 24 * HOUR + 1;
    const signed = await sign(rotated.partner, at);
    expect(signed.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(verifies(rotated.secret, signed.headers, at)).toEqual(payload);
    expect(() => verifies(OLD_WHSEC, signed.headers, at)).toThrow(/No matching signature/);
  });
});

describe('HMAC_SHA256 secret rotation: a staged switch', () => {
  const OLD = 'old-shared-secret';
  const before = partnerWith({
    method: 'HMAC_SHA256',
    api_key: seal('api_key', 'ak'),
    secret: seal('secret', OLD),
    key_header: 'X-API-Key',
    timestamp_header: 'X-Timestamp',
    signature_header: 'X-Signature',
  });
  const rotated = rotateSigningSecret(before, 24 * HOUR, { box, now: T0 });
  const signedWith = (secret: string, headers: Record<string, string>) =>
    createHmac('sha256', secret).update(`ak|${headers['X-Timestamp']}|${body}`).digest('base64') === headers['X-Signature'];

  test('before the switch time, the old secret signs; from it on, the new one', async () => {
    expect(rotated.state).toEqual({ method: 'HMAC_SHA256', next_secret_from: T0 + 24 * HOUR });
    const early = await sign(rotated.partner, T0 + HOUR);
    expect(signedWith(OLD, early.headers)).toBe(true);
    expect(signedWith(rotated.secret, early.headers)).toBe(false);
    const late = await sign(rotated.partner, T0 + 24 * HOUR);
    expect(signedWith(rotated.secret, late.headers)).toBe(true);
  });

  test('when the partner activates it early, the new secret signs at once and nothing stays staged', async () => {
    const activated = activateSigningSecret(rotated.partner, { box, now: T0 + HOUR });
    expect(activated.partner.outbound_auth).toMatchObject({ next_secret: null, next_secret_from: null });
    expect(signedWith(rotated.secret, (await sign(activated.partner, T0 + HOUR)).headers)).toBe(true);
    expect(() => activateSigningSecret(activated.partner, { box, now: T0 + HOUR })).toThrow(/no rotated secret is waiting/);
  });
});

test('a method without a secret the partner can rotate is refused naming it', () => {
  const partner = partnerWith({ method: 'BEARER_STATIC', token: seal('token', 't') });
  expect(() => rotateSigningSecret(partner, HOUR, { box, now: T0 })).toThrow(/authenticated with BEARER_STATIC: .*ask an operator/);
});
