import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '../../../test/helpers/infrastructure';
import { policyEvent } from '../../../test/helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';

/**
 * The verification snippets partners are given (examples/verify, shown in docs/verifying.md and
 * the console) against REAL deliveries: the policy-status-consumer and callback-sender processes
 * sign and POST a callback per method to a receiver here, which keeps the exact headers and bytes;
 * each snippet, in Node, Python and Java, must accept that request and refuse it tampered (its
 * body changed where a signature covers it; its credential changed where nothing is signed). A
 * missing python3 or java fails the test: it is never skipped.
 */
const ROOT = path.resolve(__dirname, '../../..');
const LANGUAGES: Array<[string, string, string[]]> = [
  ['Node', process.execPath, [path.join(ROOT, 'examples/verify/node/verify.mjs')]],
  ['Python', 'python3', [path.join(ROOT, 'examples/verify/python/verify.py')]],
  ['Java', 'java', [path.join(ROOT, 'examples/verify/java/Verify.java')]],
];

const WHSEC = `whsec_${Buffer.from('a-standard-webhooks-secret-32-bytes!').toString('base64')}`;
const JWT_SECRET = 'a-jwt-shared-secret-of-enough-length';

interface Method {
  name: string;
  /** The partner's outbound_auth as onboarded. */
  auth: Record<string, unknown>;
  /** What the partner holds, as the snippets take it. */
  config: Record<string, unknown>;
  /** The request tampered: a signed body changed, or for a method that signs nothing, its credential. */
  tamper: (headers: Record<string, string>, body: Buffer) => { headers: Record<string, string>; body: Buffer };
}

/** The policy number changed in the body (every signed string here covers it). */
const otherBody = (headers: Record<string, string>, body: Buffer) => {
  const text = body.toString('utf8');
  const changed = text.replace(/"policy_number":"([^"]*)"/, '"policy_number":"$1-X"');
  expect(changed).not.toBe(text);
  return { headers, body: Buffer.from(changed, 'utf8') };
};
const otherAuthorization = (value: string) => (headers: Record<string, string>, body: Buffer) => ({
  headers: { ...headers, authorization: value },
  body,
});

const md5Parts = [{ kind: 'SECRET' }, { kind: 'BODY_FIELD', path: 'policy_number' }, { kind: 'LITERAL', value: 'v1' }];
const METHODS: Method[] = [
  {
    name: 'HMAC_SHA256',
    auth: { method: 'HMAC_SHA256', api_key: 'hk-verify-1', secret: 'hmac-shared-secret' },
    config: {
      api_key: 'hk-verify-1',
      secret: 'hmac-shared-secret',
      key_header: 'X-API-Key',
      timestamp_header: 'X-Timestamp',
      signature_header: 'X-Signature',
    },
    tamper: otherBody,
  },
  {
    name: 'MD5 in a header',
    auth: { method: 'MD5', secret: 'md5-secret', parts: md5Parts, placement: 'header', target: 'X-Sign' },
    config: { secret: 'md5-secret', parts: md5Parts, placement: 'HEADER', target: 'X-Sign' },
    tamper: otherBody,
  },
  {
    name: 'MD5 in a body field',
    auth: { method: 'MD5', secret: 'md5-secret', parts: md5Parts, placement: 'body_field', target: 'Sign' },
    config: { secret: 'md5-secret', parts: md5Parts, placement: 'BODY_FIELD', target: 'Sign' },
    tamper: otherBody,
  },
  {
    name: 'STANDARD_WEBHOOKS',
    auth: { method: 'STANDARD_WEBHOOKS', secret: WHSEC },
    config: { secret: WHSEC },
    tamper: otherBody,
  },
  {
    name: 'API_KEY',
    auth: { method: 'API_KEY', header_name: 'X-Partner-Key', api_key: 'partner-key-123' },
    config: { api_key: 'partner-key-123', header_name: 'X-Partner-Key' },
    tamper: (headers, body) => ({ headers: { ...headers, 'x-partner-key': 'partner-key-124' }, body }),
  },
  {
    name: 'BEARER_STATIC',
    auth: { method: 'BEARER_STATIC', token: 'static-token-xyz' },
    config: { token: 'static-token-xyz' },
    tamper: otherAuthorization('Bearer static-token-xyZ'),
  },
  {
    name: 'BASIC',
    auth: { method: 'BASIC', username: 'acme', password: 'pä55:word' },
    config: { username: 'acme', password: 'pä55:word' },
    tamper: otherAuthorization(`Basic ${Buffer.from('acme:pä55:wordX').toString('base64')}`),
  },
  {
    name: 'BEARER_JWT',
    auth: { method: 'BEARER_JWT', secret: JWT_SECRET, algorithm: 'HS384', issuer: 'HOOKSTREAM', lifetime_seconds: 300 },
    config: { secret: JWT_SECRET, algorithm: 'HS384', issuer: 'HOOKSTREAM', lifetime_seconds: 300 },
    // The same token with one claim changed: its signature no longer matches.
    tamper: (headers, body) => {
      const [head, payload, signature] = headers['authorization']!.replace(/^Bearer /, '').split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, iss: 'SOMEONE-ELSE' })).toString('base64url');
      return { headers: { ...headers, authorization: `Bearer ${head}.${forged}.${signature}` }, body };
    },
  },
];

let outbound: OutboundFixture;
let dir: string;

beforeAll(async () => {
  outbound = await OutboundFixture.open('verify-snippets', { retryDelaysMs: retryTierDelays(60_000) });
  await Promise.all([outbound.startConsumer(), outbound.startSender()]);
  dir = mkdtempSync(path.join(tmpdir(), 'verify-snippets-'));
}, 120_000);

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await outbound?.close();
});

/** Onboards a partner with `auth`, publishes one event for it, and returns the request its receiver got, exactly. */
async function deliveredWith(auth: Record<string, unknown>): Promise<{ headers: Record<string, string>; body: Buffer }> {
  const partnerId = uniquePartnerId('verify');
  const target = await outbound.receiver();
  await outbound.partners.create(partnerId, { callback_endpoints: [{ url: `${target.url}/callbacks` }], outbound_auth: auth });
  await outbound.events.publish([policyEvent(partnerId)]);
  const [request] = await waitFor(() => target.requests.length > 0 && target.requests, 'the callback to arrive', 30_000);
  // Node's names are lower-case already; a header sent twice would be joined, as a server reads it.
  const headers = Object.fromEntries(Object.entries(request!.headers).map(([name, value]) => [name, String(value)]));
  return { headers, body: request!.raw };
}

/** Runs one language's snippet on a request: its exit code and what it printed. */
function verdict(
  language: (typeof LANGUAGES)[number],
  method: string,
  config: object,
  request: { headers: object; body: Buffer },
  name: string,
) {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ method, config, headers: request.headers, body_base64: request.body.toString('base64') }));
  const [, command, args] = language;
  const run = spawnSync(command, [...args, file], { encoding: 'utf8', timeout: 60_000 });
  // A missing interpreter is an error of its own (ENOENT): it fails here, with its name.
  expect(run.error).toBeUndefined();
  return { status: run.status, out: `${run.stdout}${run.stderr}`.trim() };
}

describe('each verification snippet accepts a real delivery and refuses it tampered', () => {
  test.each(METHODS.map((m) => [m.name, m] as const))(
    '%s',
    async (_name, { auth, config, tamper }) => {
      const real = await deliveredWith(auth);
      const tampered = tamper(real.headers, real.body);
      const method = auth['method'] as string;
      for (const language of LANGUAGES) {
        const slug = `${_name.replace(/\W+/g, '-')}-${language[0]}`;
        expect([language[0], verdict(language, method, config, real, `${slug}-real`)]).toEqual([language[0], { status: 0, out: 'valid' }]);
        expect([language[0], verdict(language, method, config, tampered, `${slug}-tampered`)]).toEqual([
          language[0],
          { status: 1, out: 'refused' },
        ]);
      }
    },
    120_000,
  );
});
