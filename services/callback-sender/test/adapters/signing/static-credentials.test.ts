import { ErrorCodes } from '@hookstream/errors';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { secretContext } from '@hookstream/partners';
import { createCallbackSigner } from '../../../src/adapters/signing';

const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const seal = (field: string, value: string) => box.encrypt(value, secretContext(PARTNER, field));

const body = '{"policy_number":"P-1","status":"POLICY_ACTIVE"}';
const attempt = { body, deliveryId: 'd-1', now: new Date('2026-03-01T10:00:00Z') };

describe('API_KEY, BEARER_STATIC and BASIC signing (spec 5.1)', () => {
  test('when API_KEY is used, then the key is in the agreed header and the body is sent as given', async () => {
    const signer = createCallbackSigner({
      partnerId: PARTNER,
      auth: { method: 'API_KEY', header_name: 'x-api-key', api_key: seal('api_key', 'key-123') },
      secrets: box,
    });
    const signed = await signer.sign(attempt);
    expect(signed.headers).toEqual({ 'content-type': 'application/json', 'x-api-key': 'key-123' });
    expect(signed.body.toString('utf8')).toBe(body);
  });

  test('when BEARER_STATIC is used, then Authorization is "Bearer " and the token', async () => {
    const signer = createCallbackSigner({
      partnerId: PARTNER,
      auth: { method: 'BEARER_STATIC', token: seal('token', 'tok.abc') },
      secrets: box,
    });
    expect((await signer.sign(attempt)).headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer tok.abc' });
  });

  test('when BASIC is used, then Authorization decodes to username ":" password in UTF-8 (a ":" in the password kept)', async () => {
    const password = 'pä:ss wörd';
    const signer = createCallbackSigner({
      partnerId: PARTNER,
      auth: { method: 'BASIC', username: 'travelco', password: seal('password', password) },
      secrets: box,
    });
    const authorization = (await signer.sign(attempt)).headers.authorization ?? '';
    const [scheme, credential] = authorization.split(' ');
    expect(scheme).toBe('Basic');
    const decoded = Buffer.from(credential ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    expect([decoded.slice(0, colon), decoded.slice(colon + 1)]).toEqual(['travelco', password]);
  });

  test('when a secret sent in a header holds a line break, then the signer is refused without showing the secret', () => {
    const create = () =>
      createCallbackSigner({
        partnerId: PARTNER,
        auth: { method: 'BEARER_STATIC', token: seal('token', 'abc\r\nX-Evil: 1') },
        secrets: box,
      });
    let error: unknown;
    try {
      create();
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({ code: ErrorCodes.SIGNING_CONFIG_INVALID, retryable: false });
    expect((error as Error).message).toMatch(/outbound_auth\.token cannot be sent in a header/);
    expect((error as Error).message).not.toContain('X-Evil');
  });
});
