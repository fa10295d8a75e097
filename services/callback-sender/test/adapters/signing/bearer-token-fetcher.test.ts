import { recordableHeaders } from '../../../src/domain/recorded-headers';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { isRetryable, ErrorCodes } from '@hookstream/errors';
import { secretContext } from '@hookstream/partners';
import {
  BearerTokenFetcher,
  MAX_TOKEN_RESPONSE_BYTES,
  createCallbackSigner,
  type BearerFetchedAuth,
  type CallbackSigningError,
} from '../../../src/adapters/signing';

const PARTNER = 'acme';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const seal = (field: string, value: string) => box.encrypt(value, secretContext(PARTNER, field));
const CLIENT_SECRET = 'client-secret-7f3a';
const BODY_SECRET = '{"client_id":"hookstream","client_secret":"body-secret-91c2"}';

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Handler = (req: IncomingMessage, res: ServerResponse, count: number) => void;

/** A real token endpoint on 127.0.0.1:0; `answer` is set per test. */
const endpoint = {
  server: undefined as Server | undefined,
  url: '',
  seen: [] as SeenRequest[],
  answer: ((_req, res, count) => json(res, 200, { access_token: `tok-${count}`, expires_in: 3600 })) as Handler,
};
const json = (res: ServerResponse, status: number, value: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

beforeAll(async () => {
  endpoint.server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      endpoint.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      endpoint.answer(req, res, endpoint.seen.length);
    });
  });
  await new Promise<void>((resolve) => endpoint.server!.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(endpoint.server.address() as AddressInfo).port}/oauth/token`;
});
afterAll(async () => {
  endpoint.server?.closeAllConnections();
  await new Promise((resolve) => endpoint.server?.close(resolve));
});
beforeEach(() => {
  endpoint.seen = [];
  endpoint.answer = (_req, res, count) => json(res, 200, { access_token: `tok-${count}`, expires_in: 3600 });
});

const auth = (overrides: Partial<BearerFetchedAuth> = {}): BearerFetchedAuth => ({
  method: 'BEARER_FETCHED',
  token_url: endpoint.url,
  request_method: 'POST',
  request_headers: { 'X-Client-Id': 'hookstream' },
  secret_headers: { 'X-Client-Secret': seal('secret_headers.X-Client-Secret', CLIENT_SECRET) },
  request_body_secret: seal('request_body_secret', BODY_SECRET),
  token_path: 'access_token',
  cache_seconds: null,
  ...overrides,
});
const attempt = { body: '{"policy_number":"P-1"}', deliveryId: 'd-1', now: new Date() };
/** Unguarded on purpose: the token endpoint here is on 127.0.0.1, which the sender's SSRF guard refuses. */
const loopback = new Agent();
afterAll(() => loopback.close());
const signerWith = (a = auth(), extra: { tokenFetcher?: BearerTokenFetcher; dispatcher?: Dispatcher } = {}) =>
  createCallbackSigner({ partnerId: PARTNER, auth: a, secrets: box, dispatcher: loopback, ...extra });
const fetchError = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as CallbackSigningError;

/** A secret must not reach a message, the details or the cause. */
function expectNoSecrets(error: CallbackSigningError) {
  const text = `${error.message} ${JSON.stringify(error.details)} ${inspect(error.cause)}`;
  for (const secret of [CLIENT_SECRET, 'body-secret-91c2', 'leaked-in-body']) expect(text).not.toContain(secret);
}

describe('BEARER_FETCHED: token request', () => {
  test('when a callback is signed, then the token endpoint gets the headers, the secret headers and the JSON body, and the token is sent as Bearer', async () => {
    const signed = await signerWith().sign(attempt);
    expect(signed.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer tok-1' });
    expect(recordableHeaders(signed)).toEqual({ 'content-type': 'application/json', authorization: '[redacted]' });
    expect(signed.body.toString()).toBe(attempt.body);
    expect(endpoint.seen).toHaveLength(1);
    expect(endpoint.seen[0]).toMatchObject({
      method: 'POST',
      url: '/oauth/token',
      body: BODY_SECRET,
      headers: {
        'x-client-id': 'hookstream',
        'x-client-secret': CLIENT_SECRET,
        'content-type': 'application/json',
        accept: 'application/json',
      },
    });
  });

  test('when the body is not JSON, then it is sent form-urlencoded; a content-type in request_headers wins; GET is honoured', async () => {
    const form = 'grant_type=client_credentials&client_secret=s3';
    await signerWith(auth({ request_body_secret: seal('request_body_secret', form), secret_headers: {} })).sign(attempt);
    expect(endpoint.seen[0]).toMatchObject({
      method: 'POST',
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

    await signerWith(auth({ request_method: 'GET', request_headers: { 'Content-Type': 'text/plain' } })).sign(attempt);
    expect(endpoint.seen[1]).toMatchObject({ method: 'GET', body: BODY_SECRET, headers: { 'content-type': 'text/plain' } });

    await signerWith(auth({ request_body_secret: null })).sign(attempt);
    expect(endpoint.seen[2]?.body).toBe('');
    expect(endpoint.seen[2]?.headers['content-type']).toBeUndefined();
  });

  test('when the token sits at a nested path and carries a "Bearer " prefix, then it is read there and not prefixed twice', async () => {
    endpoint.answer = (_req, res) => json(res, 200, { data: { token: 'Bearer abc.def' } });
    const signed = await signerWith(auth({ token_path: 'data.token' })).sign(attempt);
    expect(signed.headers.authorization).toBe('Bearer abc.def');
  });

  test('when a dispatcher is given, then the token request goes through it', async () => {
    let dispatched = 0;
    class CountingAgent extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        dispatched += 1;
        return super.dispatch(options, handler);
      }
    }
    const agent = new CountingAgent();
    await signerWith(auth(), { dispatcher: agent }).sign(attempt);
    await agent.close();
    expect(dispatched).toBe(1);
  });

  test('when the signer or the fetcher is inspected or serialised, then no secret shows', () => {
    const fetcher = new BearerTokenFetcher({ partnerId: PARTNER, auth: auth(), secrets: box, dispatcher: loopback });
    const signer = signerWith(auth(), { tokenFetcher: fetcher });
    const shown = `${inspect(fetcher, { depth: 10, showHidden: true })} ${JSON.stringify(fetcher)} ${inspect(signer, { depth: 10 })}`;
    expect(shown).not.toContain(CLIENT_SECRET);
    expect(shown).not.toContain('body-secret-91c2');
  });
});

describe('BEARER_FETCHED: token cache', () => {
  test('when many callbacks are signed one after another, then the token is fetched once', async () => {
    const signer = signerWith();
    for (let i = 0; i < 5; i += 1) expect((await signer.sign(attempt)).headers.authorization).toBe('Bearer tok-1');
    expect(endpoint.seen).toHaveLength(1);
  });

  test('when 20 callbacks are signed at once, then they share one fetch in flight', async () => {
    endpoint.answer = (_req, res, count) => setTimeout(() => json(res, 200, { access_token: `tok-${count}` }), 100);
    const signer = signerWith();
    const signed = await Promise.all(Array.from({ length: 20 }, () => signer.sign(attempt)));
    expect(new Set(signed.map((s) => s.headers.authorization))).toEqual(new Set(['Bearer tok-1']));
    expect(endpoint.seen).toHaveLength(1);
  });

  test('when signers share a fetcher, then they share its token', async () => {
    const tokenFetcher = new BearerTokenFetcher({ partnerId: PARTNER, auth: auth(), secrets: box, dispatcher: loopback });
    await signerWith(auth(), { tokenFetcher }).sign(attempt);
    expect((await signerWith(auth(), { tokenFetcher }).sign(attempt)).headers.authorization).toBe('Bearer tok-1');
    expect(endpoint.seen).toHaveLength(1);
  });

  test.each([
    ['expires_in 100 s: refreshed 10 s early', { expires_in: 100 }, null, 90_000],
    ['expires_in "3600" (a string): refreshed 30 s early', { expires_in: '3600' }, null, 3_570_000],
    ['no expires_in: the 300 s default, refreshed 30 s early', {}, null, 270_000],
    ['cache_seconds 60 set: used as is, whatever expires_in says', { expires_in: 3600 }, 60, 60_000],
  ])('when %s, then the token is reused until then and fetched again from then', async (_what, answer, cacheSeconds, refreshAfterMs) => {
    endpoint.answer = (_req, res, count) => json(res, 200, { access_token: `tok-${count}`, ...answer });
    let clock = 1_000_000;
    const tokenFetcher = new BearerTokenFetcher({
      partnerId: PARTNER,
      auth: auth({ cache_seconds: cacheSeconds }),
      secrets: box,
      dispatcher: loopback,
      now: () => clock,
    });
    const signer = signerWith(auth(), { tokenFetcher });
    expect((await signer.sign(attempt)).headers.authorization).toBe('Bearer tok-1');
    clock += refreshAfterMs - 1;
    expect((await signer.sign(attempt)).headers.authorization).toBe('Bearer tok-1');
    clock += 1;
    expect((await signer.sign(attempt)).headers.authorization).toBe('Bearer tok-2');
    expect(endpoint.seen).toHaveLength(2);
  });

  test('when the partner answered 401 and credentials are invalidated, then the next callback fetches a new token', async () => {
    const signer = signerWith();
    await signer.sign(attempt);
    signer.invalidateCredentials();
    expect((await signer.sign(attempt)).headers.authorization).toBe('Bearer tok-2');
    expect((await signer.sign(attempt)).headers.authorization).toBe('Bearer tok-2');
    expect(endpoint.seen).toHaveLength(2);
  });
});

describe('BEARER_FETCHED: failures are TOKEN_FETCH_FAILED, retryable, without secrets', () => {
  test.each<[string, Handler, RegExp]>([
    ['a non-2xx answer', (_req, res) => json(res, 500, { error: 'leaked-in-body' }), /token endpoint answered HTTP 500$/],
    ['a redirect (not followed)', (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end(), /answered HTTP 302$/],
    ['an answer that is not JSON', (_req, res) => res.writeHead(200).end('leaked-in-body <html>'), /HTTP 200 answer is not JSON$/],
    ['an answer without the token', (_req, res) => json(res, 200, { token_type: 'leaked-in-body' }), /no usable token at "access_token"$/],
    ['a token that is not a string', (_req, res) => json(res, 200, { access_token: 42 }), /no usable token/],
    ['a token with a line break', (_req, res) => json(res, 200, { access_token: 'abc\r\nX-Evil: 1' }), /no usable token/],
    [
      'an answer over the size limit',
      (_req, res) => json(res, 200, { access_token: 'x', pad: 'leaked-in-body'.repeat(MAX_TOKEN_RESPONSE_BYTES / 10) }),
      /answer is larger than 64 KiB$/,
    ],
  ])('when the endpoint gives %s, then signing fails saying so', async (_what, answer, message) => {
    endpoint.answer = answer;
    const error = await fetchError(signerWith().sign(attempt));
    expect(error).toMatchObject({ code: ErrorCodes.TOKEN_FETCH_FAILED, retryable: true });
    expect(isRetryable(error)).toBe(true);
    expect(error.message).toMatch(/^partner "acme": token fetch failed: /);
    expect(error.message).toMatch(message);
    expectNoSecrets(error);
  });

  test('when the endpoint does not answer in time, then signing fails after the timeout', async () => {
    endpoint.answer = () => {};
    const tokenFetcher = new BearerTokenFetcher({ partnerId: PARTNER, auth: auth(), secrets: box, dispatcher: loopback, timeoutMs: 200 });
    const started = Date.now();
    const error = await fetchError(signerWith(auth(), { tokenFetcher }).sign(attempt));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toMatchObject({ code: ErrorCodes.TOKEN_FETCH_FAILED, retryable: true });
    expect(error.message).toMatch(/no answer within 200 ms$/);
    expectNoSecrets(error);
  });

  test('when nothing listens at the token URL, then signing fails naming the network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await fetchError(signerWith(auth({ token_url: `http://127.0.0.1:${port}/token` })).sign(attempt));
    expect(error).toMatchObject({ code: ErrorCodes.TOKEN_FETCH_FAILED, retryable: true });
    expect(error.message).toMatch(/request failed \(ECONNREFUSED\)$/);
    expectNoSecrets(error);
  });

  test('when a fetch failed, then the next callback tries again (failures are not cached)', async () => {
    endpoint.answer = (_req, res, count) => (count === 1 ? json(res, 503, {}) : json(res, 200, { access_token: 'tok-ok' }));
    const signer = signerWith();
    await expect(signer.sign(attempt)).rejects.toMatchObject({ code: ErrorCodes.TOKEN_FETCH_FAILED });
    expect((await signer.sign(attempt)).headers.authorization).toBe('Bearer tok-ok');
  });
});
