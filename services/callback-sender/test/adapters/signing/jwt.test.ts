import { ErrorCodes } from '@hookstream/errors';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { secretContext, type JwtAlgorithm, type OutboundAuth } from '@hookstream/partners';
import { createCallbackSigner } from '../../../src/adapters/signing';

const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const SECRET = 'jwt-shared-secret-of-enough-length-for-hs512-0123456789abcdef';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const auth = (algorithm: JwtAlgorithm, extra: Record<string, unknown> | null = null, lifetime = 300): OutboundAuth => ({
  method: 'BEARER_JWT',
  secret: box.encrypt(SECRET, secretContext(PARTNER, 'secret')),
  algorithm,
  issuer: 'HOOKSTREAM',
  lifetime_seconds: lifetime,
  extra_claims_json: extra ? JSON.stringify(extra) : null,
});
const bearerOf = (headers: Record<string, string>) => /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1] ?? '';
const verify = (jwt: string, algorithm: JwtAlgorithm, now: Date, secret = SECRET) =>
  jwtVerify(jwt, new TextEncoder().encode(secret), { algorithms: [algorithm], issuer: 'HOOKSTREAM', currentDate: now });

describe('BEARER_JWT signing (spec 5.1)', () => {
  test.each<JwtAlgorithm>(['HS256', 'HS384', 'HS512'])(
    'when signed with %s, then jose verifies it with the shared secret, the algorithm and the issuer; exp - iat = lifetime',
    async (algorithm) => {
      const now = new Date('2026-03-01T10:00:00.750Z');
      const signer = createCallbackSigner({
        partnerId: PARTNER,
        auth: auth(algorithm, { partner: 'acme', scope: ['cb'] }, 120),
        secrets: box,
      });
      const signed = await signer.sign({ body: '{"a":1}', deliveryId: 'd-1', now });
      const jwt = bearerOf(signed.headers);

      const { payload, protectedHeader } = await verify(jwt, algorithm, now);
      expect(protectedHeader).toEqual({ alg: algorithm, typ: 'JWT' });
      expect(payload.iat).toBe(Math.floor(now.getTime() / 1000));
      expect(payload.exp! - payload.iat!).toBe(120);
      expect(payload).toMatchObject({ iss: 'HOOKSTREAM', partner: 'acme', scope: ['cb'], jti: expect.stringMatching(UUID) });
      expect(signed.body.toString()).toBe('{"a":1}');
      await expect(verify(jwt, algorithm, now, `${SECRET}x`)).rejects.toThrow(/signature verification failed/);
      await expect(verify(jwt, algorithm, new Date(now.getTime() + 121_000))).rejects.toThrow(/"exp" claim/);
    },
  );

  test('when two attempts are signed, then each has a fresh token: its own iat, exp and jti', async () => {
    const signer = createCallbackSigner({ partnerId: PARTNER, auth: auth('HS256'), secrets: box });
    const at = new Date('2026-03-01T10:00:00Z');
    const later = new Date('2026-03-01T10:03:00Z');
    const first = await verify(bearerOf((await signer.sign({ body: '{}', deliveryId: 'd-1', now: at })).headers), 'HS256', at);
    const sameTime = await verify(bearerOf((await signer.sign({ body: '{}', deliveryId: 'd-1', now: at })).headers), 'HS256', at);
    const retry = await verify(bearerOf((await signer.sign({ body: '{}', deliveryId: 'd-1', now: later })).headers), 'HS256', later);
    expect(retry.payload.iat! - first.payload.iat!).toBe(180);
    expect(retry.payload.exp! - first.payload.exp!).toBe(180);
    expect(new Set([first.payload.jti, sameTime.payload.jti, retry.payload.jti]).size).toBe(3);
  });

  test('when the extra claims set jti, then it is kept; iss, iat and exp are always the signer own', async () => {
    const now = new Date('2026-03-01T10:00:00Z');
    const signer = createCallbackSigner({ partnerId: PARTNER, auth: auth('HS256', { jti: 'fixed', iss: 'EVIL', exp: 1 }), secrets: box });
    const { payload } = await verify(bearerOf((await signer.sign({ body: '{}', deliveryId: 'd-1', now })).headers), 'HS256', now);
    expect(payload).toMatchObject({ jti: 'fixed', iss: 'HOOKSTREAM', exp: payload.iat! + 300 });
    expect(decodeProtectedHeader(bearerOf((await signer.sign({ body: '{}', deliveryId: 'd-1', now })).headers)).alg).toBe('HS256');
  });

  test.each(['[1]', 'not json', '"text"'])('when extra_claims_json is %p, then the signer is refused as SIGNING_CONFIG_INVALID', (json) => {
    const create = () =>
      createCallbackSigner({ partnerId: PARTNER, auth: { ...auth('HS256'), extra_claims_json: json } as OutboundAuth, secrets: box });
    expect(create).toThrow(expect.objectContaining({ code: ErrorCodes.SIGNING_CONFIG_INVALID }));
  });
});
