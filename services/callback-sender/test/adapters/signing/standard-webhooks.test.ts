import { ErrorCodes } from '@hookstream/errors';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { secretContext } from '@hookstream/partners';
import { createCallbackSigner } from '../../../src/adapters/signing';

const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const signerWith = (secret: string) =>
  createCallbackSigner({
    partnerId: PARTNER,
    auth: { method: 'STANDARD_WEBHOOKS', secret: box.encrypt(secret, secretContext(PARTNER, 'secret')) },
    secrets: box,
  });

const payload = { policy_number: 'P-1', status: 'POLICY_ACTIVE', policy_holder: { full_name: 'Zoë' } };
const body = JSON.stringify(payload);

describe('STANDARD_WEBHOOKS signing', () => {
  test('when a callback is signed, then the official standardwebhooks library verifies it; id = delivery id, timestamp = unix seconds', async () => {
    const now = new Date();
    const signed = await signerWith(SECRET).sign({ body, deliveryId: 'dlv_2Xk9', now });
    expect(signed.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'dlv_2Xk9',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(new Webhook(SECRET).verify(signed.body.toString('utf8'), signed.headers)).toEqual(payload);
  });

  test('when the body or the secret differ, then the library refuses the signature', async () => {
    const signed = await signerWith(SECRET).sign({ body, deliveryId: 'dlv_1', now: new Date() });
    expect(() => new Webhook(SECRET).verify(body.replace('P-1', 'P-9'), signed.headers)).toThrow(/No matching signature/);
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(() => new Webhook(other).verify(signed.body.toString('utf8'), signed.headers)).toThrow(/No matching signature/);
  });

  test('when a delivery is retried, then the id stays, the timestamp and signature are new, and both verify', async () => {
    const signer = signerWith(SECRET);
    const now = Date.now();
    const first = await signer.sign({ body, deliveryId: 'dlv_1', now: new Date(now - 60_000) });
    const retry = await signer.sign({ body, deliveryId: 'dlv_1', now: new Date(now) });
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(Number(retry.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).toBe(60);
    expect(retry.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
    for (const signed of [first, retry]) expect(new Webhook(SECRET).verify(body, signed.headers)).toEqual(payload);
  });

  test('when signed with the clock 10 minutes back, then the library refuses the timestamp as too old (the attempt clock is used)', async () => {
    const signed = await signerWith(SECRET).sign({ body, deliveryId: 'dlv_1', now: new Date(Date.now() - 600_000) });
    expect(() => new Webhook(SECRET).verify(body, signed.headers)).toThrow(/too old/);
  });

  test('when the secret is not whsec_ and base64, then the signer is refused without showing it', () => {
    const create = () => signerWith('whsec_not base64!');
    expect(create).toThrow(expect.objectContaining({ code: ErrorCodes.SIGNING_CONFIG_INVALID }));
    expect(create).toThrow(/outbound_auth\.secret is not whsec_ followed by base64$/);
  });
});
