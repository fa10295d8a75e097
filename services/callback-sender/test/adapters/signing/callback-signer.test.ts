import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { isRetryable, ErrorCodes } from '@hookstream/errors';
import { secretContext, type OutboundAuth } from '@hookstream/partners';
import { BearerTokenFetcher, createCallbackSigner, type BearerFetchedAuth, type CallbackSigningError } from '../../../src/adapters/signing';

const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
/** Every secret of these auths holds PLAIN, so a leak anywhere is one `toContain` away. */
const PLAIN = 'Pl41nS3cr3tValue';
const seal = (field: string, value = PLAIN) => box.encrypt(value, secretContext(PARTNER, field));

const auths: OutboundAuth[] = [
  { method: 'API_KEY', header_name: 'x-api-key', api_key: seal('api_key') },
  {
    method: 'HMAC_SHA256',
    api_key: seal('api_key', 'public-key'),
    secret: seal('secret'),
    key_header: 'X-API-Key',
    timestamp_header: 'X-Timestamp',
    signature_header: 'X-Signature',
  },
  { method: 'MD5', secret: seal('secret'), parts: [{ kind: 'SECRET', value: '' }], placement: 'HEADER', target: 'X-Sign' },
  { method: 'BEARER_STATIC', token: seal('token') },
  {
    method: 'BEARER_JWT',
    secret: seal('secret'),
    algorithm: 'HS256',
    issuer: 'HOOKSTREAM',
    lifetime_seconds: 300,
    extra_claims_json: null,
  },
  { method: 'BASIC', username: 'u', password: seal('password') },
  { method: 'STANDARD_WEBHOOKS', secret: seal('secret', `whsec_${Buffer.from(PLAIN).toString('base64')}`) },
];
const attempt = { body: '{"policy_number":"P-1"}', deliveryId: 'd-1', now: new Date('2026-03-01T10:00:00Z') };

describe('createCallbackSigner', () => {
  test.each(auths.map((auth) => [auth.method, auth] as const))(
    'when %s signs, then the body is sent as JSON, the headers are a new object each time, and 401 handling is a no-op',
    async (method, auth) => {
      const signer = createCallbackSigner({ partnerId: PARTNER, auth, secrets: box });
      expect(signer.method).toBe(method);
      const first = await signer.sign(attempt);
      expect(first.headers['content-type']).toBe('application/json');
      expect(first.body.toString('utf8')).toBe(attempt.body);
      first.headers['x-added-by-sender'] = '1';
      signer.invalidateCredentials();
      const second = await signer.sign(attempt);
      expect(second.headers['x-added-by-sender']).toBeUndefined();
      expect(Object.keys(second.headers).sort()).toEqual(
        Object.keys(first.headers)
          .filter((h) => h !== 'x-added-by-sender')
          .sort(),
      );
    },
  );

  test.each(auths.map((auth) => [auth.method, auth] as const))(
    'when a %s signer is inspected or serialised, then no plaintext secret shows',
    (_method, auth) => {
      const signer = createCallbackSigner({ partnerId: PARTNER, auth, secrets: box });
      const shown = `${inspect(signer, { depth: 10, showHidden: true })} ${JSON.stringify(signer)}`;
      expect(shown).not.toContain(PLAIN);
      expect(shown).not.toContain(Buffer.from(PLAIN).toString('base64'));
    },
  );

  test.each(auths.map((auth) => [auth.method, auth] as const))(
    'when a %s secret was sealed for another partner, then creation fails with SIGNING_CONFIG_INVALID naming the field only',
    (_method, auth) => {
      let error: CallbackSigningError | undefined;
      try {
        createCallbackSigner({ partnerId: 'other-partner', auth, secrets: box });
      } catch (thrown) {
        error = thrown as CallbackSigningError;
      }
      expect(error).toMatchObject({ code: ErrorCodes.SIGNING_CONFIG_INVALID, retryable: false });
      expect(isRetryable(error)).toBe(false);
      expect(error?.message).toMatch(/^partner "other-partner": outbound_auth\.\w+ does not decrypt$/);
      expect(`${error?.message} ${JSON.stringify(error?.details)}`).not.toContain(PLAIN);
    },
  );

  test('when the keyring lacks the key a secret was sealed with, then creation fails with SIGNING_CONFIG_INVALID', () => {
    const otherBox = new SecretBox(parseKeyring(`k9:${randomBytes(32).toString('base64')}`, 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
    expect(() => createCallbackSigner({ partnerId: PARTNER, auth: auths[0]!, secrets: otherBox })).toThrow(
      expect.objectContaining({
        code: ErrorCodes.SIGNING_CONFIG_INVALID,
        details: { partnerId: PARTNER, field: 'api_key' },
      }),
    );
  });
});

test('when a BEARER_FETCHED signer or token fetcher is made without a dispatcher, then it is refused: no token is ever fetched unguarded from the partner-set URL', async () => {
  let fetched = 0;
  const server = createServer((_req, res) => (fetched++, res.end('{"access_token":"t"}')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const auth: BearerFetchedAuth = {
    method: 'BEARER_FETCHED',
    token_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    request_method: 'POST',
    request_headers: {},
    secret_headers: {},
    request_body_secret: null,
    token_path: 'access_token',
    cache_seconds: null,
  };
  try {
    const signed = async () => createCallbackSigner({ partnerId: PARTNER, auth, secrets: box }).sign(attempt);
    await expect(signed()).rejects.toThrow(/dispatcher/);
    // @ts-expect-error the dispatcher is required: checked at run time as well
    expect(() => new BearerTokenFetcher({ partnerId: PARTNER, auth, secrets: box })).toThrow(/dispatcher/);
    expect(fetched).toBe(0);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
