import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent } from 'undici';
import { AUTH_METHODS, secretContext, type AuthMethod, type OutboundAuth } from '@hookstream/partners';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { createCallbackSigner, type SignedCallback } from '../src/adapters/signing';

/**
 * The verification snippets of docs/partners.md, run as partners would run them, against
 * callbacks from the real signer: each must accept a genuine callback and refuse a forged,
 * tampered or stale one. A snippet is a fenced block right after `<!-- verify: METHOD -->`;
 * it defines `verify(headers, raw_body, ...args)`, and the harness appended here feeds it cases
 * as JSON on stdin and prints its answers.
 */

const ROOT = join(__dirname, '..', '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'partners.md'), 'utf8');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');

type Language = 'python' | 'js';
const snippets = new Map<string, string>();
for (const [, method, language, code] of DOC.matchAll(/<!-- verify: ([A-Z0-9_]+) -->\s*\n```(python|js)\n([\s\S]*?)\n```/g)) {
  snippets.set(`${method}/${language}`, code!);
}

const HARNESS: Record<Language, string> = {
  python: `
import base64 as _b64, json as _json, sys as _sys
_cases = _json.load(_sys.stdin)
print(_json.dumps([bool(verify(c["headers"], _b64.b64decode(c["body_b64"]), *c["args"])) for c in _cases]))
`,
  js: `
(async () => {
  const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
  const answers = [];
  for (const c of cases) answers.push(Boolean(await verify(c.headers, Buffer.from(c.body_b64, 'base64'), ...c.args)));
  process.stdout.write(JSON.stringify(answers));
})();
`,
};

interface Case {
  what: string;
  accepted: boolean;
  signed: SignedCallback;
  args: unknown[];
}

/** Runs a snippet over the cases in one process; the snippet's answers, in order. */
function runSnippet(method: AuthMethod, language: Language, cases: Case[]): boolean[] {
  const code = snippets.get(`${method}/${language}`);
  if (!code) throw new Error(`docs/partners.md has no ${language} snippet marked <!-- verify: ${method} -->`);
  const input = JSON.stringify(
    cases.map((c) => ({
      // Node hands handlers lower-case names; the Python snippets must cope with the case as sent.
      headers:
        language === 'js' ? Object.fromEntries(Object.entries(c.signed.headers).map(([k, v]) => [k.toLowerCase(), v])) : c.signed.headers,
      body_b64: c.signed.body.toString('base64'),
      args: c.args,
    })),
  );
  const [command, args] = language === 'python' ? ['python3', ['-c', code + HARNESS.python]] : [NODE, ['-e', code + HARNESS.js]];
  // cwd = the repository root, so that the Node snippets' require('jose') resolves.
  const run = spawnSync(command, args, { input, cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  if (run.error || run.status !== 0) throw new Error(`${method} ${language} snippet failed: ${run.error?.message ?? run.stderr}`);
  return JSON.parse(run.stdout) as boolean[];
}

const PARTNER = 'docs-partner';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const seal = (field: string, value: string) => box.encrypt(value, secretContext(PARTNER, field));
/** BEARER_FETCHED's token endpoint is on 127.0.0.1, which the sender's SSRF guard refuses: unguarded here on purpose. */
const loopback = new Agent();
const signerFor = (auth: OutboundAuth) => createCallbackSigner({ partnerId: PARTNER, auth, secrets: box, dispatcher: loopback });

const BODY = JSON.stringify({
  policy_number: 'P-2026-0001',
  partner_transaction_number: 'PTN-77',
  status: 'POLICY_ACTIVE',
  start_protection_at: '2026-03-01',
  calculation: { gwp: 12.5, total_sum_insured: 1000 },
  paid: true,
  policy_holder: { full_name: 'Zoë Ångström', email: null },
});
const DELIVERY_ID = 'dlv_01HZX3Q9';
const sign = (auth: OutboundAuth, options: { body?: string; secondsAgo?: number } = {}) =>
  signerFor(auth).sign({
    body: options.body ?? BODY,
    deliveryId: DELIVERY_ID,
    now: new Date(Date.now() - (options.secondsAgo ?? 0) * 1000),
  });
const withBody = (signed: SignedCallback, body: string): SignedCallback => ({ ...signed, body: Buffer.from(body, 'utf8') });
const tampered = (signed: SignedCallback) => withBody(signed, signed.body.toString('utf8').replace('POLICY_ACTIVE', 'POLICY_CANCELLED'));
const withHeader = (signed: SignedCallback, name: string, value: string): SignedCallback => ({
  ...signed,
  headers: { ...signed.headers, [name]: value },
});

let tokenEndpoint: Server;
let tokenUrl = '';
beforeAll(async () => {
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (python.error || python.status !== 0) {
    throw new Error(`python3 is needed to test the Python snippets of docs/partners.md: ${python.error?.message ?? python.stderr}`);
  }
  tokenEndpoint = createServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ access_token: `tok_${randomBytes(16).toString('hex')}` }));
  });
  await new Promise<void>((resolve) => tokenEndpoint.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(tokenEndpoint.address() as AddressInfo).port}/token`;
});
afterAll(async () => {
  await loopback.close();
  tokenEndpoint.closeAllConnections();
  await new Promise((resolve) => tokenEndpoint.close(resolve));
});

/** For each method: callbacks from the signer and whether the documented check must accept them. */
const CASES: Record<AuthMethod, () => Promise<Case[]>> = {
  API_KEY: async () => {
    const auth: OutboundAuth = { method: 'API_KEY', header_name: 'X-Partner-Key', api_key: seal('api_key', 'ak_live_5f2') };
    const signed = await sign(auth);
    return [
      { what: 'the genuine callback', accepted: true, signed, args: ['X-Partner-Key', 'ak_live_5f2'] },
      { what: 'another key expected', accepted: false, signed, args: ['X-Partner-Key', 'ak_live_5f3'] },
      { what: 'the key in another header', accepted: false, signed, args: ['x-api-key', 'ak_live_5f2'] },
    ];
  },

  HMAC_SHA256: async () => {
    const auth: OutboundAuth = {
      method: 'HMAC_SHA256',
      api_key: seal('api_key', 'ak_live_5f2'),
      secret: seal('secret', 'hmac-secret-ü'),
      key_header: 'X-API-Key',
      timestamp_header: 'X-Timestamp',
      signature_header: 'X-Signature',
    };
    const args = ['ak_live_5f2', 'hmac-secret-ü'];
    const signed = await sign(auth);
    return [
      { what: 'the genuine callback', accepted: true, signed, args },
      { what: 'a tampered body', accepted: false, signed: tampered(signed), args },
      { what: 'a re-serialised body', accepted: false, signed: withBody(signed, JSON.stringify(JSON.parse(BODY), null, 1)), args },
      { what: 'another secret', accepted: false, signed, args: ['ak_live_5f2', 'hmac-secret-u'] },
      { what: 'another API key expected', accepted: false, signed, args: ['ak_live_000', 'hmac-secret-ü'] },
      { what: 'a timestamp 10 minutes old', accepted: false, signed: await sign(auth, { secondsAgo: 600 }), args },
      { what: 'a retry signed afresh 4 minutes ago', accepted: true, signed: await sign(auth, { secondsAgo: 240 }), args },
    ];
  },

  MD5: async () => {
    const inHeader = [
      { kind: 'LITERAL', value: '<' },
      { kind: 'SECRET' },
      { kind: 'BODY_FIELD', path: 'calculation.gwp' },
      { kind: 'BODY_FIELD', path: 'paid' },
    ];
    const inHeader2 = [...inHeader, { kind: 'BODY_FIELD', path: 'policy_holder.email' }, { kind: 'BODY_FIELD', path: 'calculation' }];
    const inBody = [
      { kind: 'SECRET' },
      { kind: 'BODY_FIELD', path: 'start_protection_at' },
      { kind: 'BODY_FIELD', path: 'partner_transaction_number' },
    ];
    const md5 = (
      parts: Array<{ kind: string; path?: string; value?: string }>,
      placement: 'HEADER' | 'BODY_FIELD',
      target: string,
    ): OutboundAuth => ({
      method: 'MD5',
      secret: seal('secret', 'md5-secret'),
      parts: parts.map((p) => ({ kind: p.kind as 'SECRET', value: p.path ?? p.value ?? '' })),
      placement,
      target,
    });
    const header = await sign(md5(inHeader2, 'HEADER', 'X-Sign'));
    const field = await sign(md5(inBody, 'BODY_FIELD', 'Sign'));
    const headerArgs = ['md5-secret', inHeader2, 'HEADER', 'X-Sign'];
    const fieldArgs = ['md5-secret', inBody, 'BODY_FIELD', 'Sign'];
    const edited = (signed: SignedCallback, from: string, to: string) => withBody(signed, signed.body.toString('utf8').replace(from, to));
    return [
      { what: 'a header digest over numbers, booleans, null and objects', accepted: true, signed: header, args: headerArgs },
      { what: 'a header digest, a signed field changed', accepted: false, signed: edited(header, '12.5', '13.5'), args: headerArgs },
      { what: 'a header digest, another secret', accepted: false, signed: header, args: ['md5-secret2', ...headerArgs.slice(1)] },
      { what: 'a body-field digest', accepted: true, signed: field, args: fieldArgs },
      { what: 'a body-field digest, a signed field changed', accepted: false, signed: edited(field, 'PTN-77', 'PTN-78'), args: fieldArgs },
      { what: 'a body-field digest, another secret', accepted: false, signed: field, args: ['md5-secret2', ...fieldArgs.slice(1)] },
    ];
  },

  BEARER_STATIC: async () => {
    const signed = await sign({ method: 'BEARER_STATIC', token: seal('token', 'static-token-9d') });
    return [
      { what: 'the genuine callback', accepted: true, signed, args: ['static-token-9d'] },
      { what: 'another token expected', accepted: false, signed, args: ['static-token-9e'] },
    ];
  },

  BEARER_JWT: async () => {
    const jwt = (algorithm: 'HS256' | 'HS512', lifetime = 300): OutboundAuth => ({
      method: 'BEARER_JWT',
      secret: seal('secret', 'jwt-shared-secret-0123456789abcdef'),
      algorithm,
      issuer: 'HOOKSTREAM',
      lifetime_seconds: lifetime,
      extra_claims_json: JSON.stringify({ partner: PARTNER }),
    });
    const args = (algorithm: string, secret = 'jwt-shared-secret-0123456789abcdef', issuer = 'HOOKSTREAM') => [secret, algorithm, issuer];
    const hs256 = await sign(jwt('HS256'));
    return [
      { what: 'an HS256 token', accepted: true, signed: hs256, args: args('HS256') },
      { what: 'an HS512 token', accepted: true, signed: await sign(jwt('HS512')), args: args('HS512') },
      { what: 'another secret', accepted: false, signed: hs256, args: args('HS256', 'jwt-shared-secret-0123456789abcdeF') },
      { what: 'another algorithm than agreed', accepted: false, signed: hs256, args: args('HS512') },
      { what: 'another issuer', accepted: false, signed: hs256, args: args('HS256', undefined, 'OTHER') },
      { what: 'an expired token', accepted: false, signed: await sign(jwt('HS256'), { secondsAgo: 600 }), args: args('HS256') },
      {
        what: 'a token with forged claims',
        accepted: false,
        signed: withHeader(hs256, 'authorization', forgeClaims(hs256.headers.authorization!, { iss: 'HOOKSTREAM', partner: 'evil' })),
        args: args('HS256'),
      },
    ];
  },

  BEARER_FETCHED: async () => {
    const auth: OutboundAuth = {
      method: 'BEARER_FETCHED',
      token_url: tokenUrl,
      request_method: 'POST',
      request_headers: {},
      secret_headers: {},
      request_body_secret: seal('request_body_secret', 'grant_type=client_credentials'),
      token_path: 'access_token',
      cache_seconds: null,
    };
    const signed = await sign(auth);
    const issued = signed.headers.authorization!.replace('Bearer ', '');
    return [
      { what: 'a token the partner issued', accepted: true, signed, args: [['tok_other', issued]] },
      { what: 'a token the partner did not issue', accepted: false, signed, args: [['tok_other']] },
    ];
  },

  BASIC: async () => {
    const signed = await sign({ method: 'BASIC', username: 'travelco', password: seal('password', 'pä:ss wörd') });
    return [
      { what: 'the genuine callback', accepted: true, signed, args: ['travelco', 'pä:ss wörd'] },
      { what: 'another password', accepted: false, signed, args: ['travelco', 'pä:ss word'] },
      { what: 'another username', accepted: false, signed, args: ['travelc0', 'pä:ss wörd'] },
    ];
  },

  STANDARD_WEBHOOKS: async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const auth: OutboundAuth = { method: 'STANDARD_WEBHOOKS', secret: seal('secret', secret) };
    const signed = await sign(auth);
    const rotating = withHeader(
      signed,
      'webhook-signature',
      `v1,${randomBytes(32).toString('base64')} ${signed.headers['webhook-signature']}`,
    );
    return [
      { what: 'the genuine callback', accepted: true, signed, args: [secret] },
      { what: 'several signatures while a secret rotates', accepted: true, signed: rotating, args: [secret] },
      { what: 'a tampered body', accepted: false, signed: tampered(signed), args: [secret] },
      { what: 'another secret', accepted: false, signed, args: [`whsec_${randomBytes(32).toString('base64')}`] },
      { what: 'a timestamp 10 minutes old', accepted: false, signed: await sign(auth, { secondsAgo: 600 }), args: [secret] },
    ];
  },
};

/** The JWT with its claims replaced and its signature kept: what a forger without the secret can do. */
function forgeClaims(authorization: string, claims: Record<string, unknown>): string {
  const [header, , signature] = authorization.replace('Bearer ', '').split('.');
  const forged = Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) + 300 })).toString('base64url');
  return `Bearer ${header}.${forged}.${signature}`;
}

describe('docs/partners.md verification snippets', () => {
  test('every auth method has a Python and a Node snippet', () => {
    const missing = AUTH_METHODS.flatMap((m) =>
      (['python', 'js'] as const).filter((l) => !snippets.has(`${m}/${l}`)).map((l) => `${m}/${l}`),
    );
    expect(missing).toEqual([]);
  });

  describe.each(AUTH_METHODS.map((method) => [method]))('%s', (method) => {
    test.each<[Language]>([['python'], ['js']])(
      'when the %s snippet checks callbacks from the signer, then it accepts the genuine ones and refuses the others',
      async (language) => {
        const cases = await CASES[method]();
        const answers = runSnippet(method, language, cases);
        expect(Object.fromEntries(cases.map((c, i) => [c.what, answers[i]]))).toEqual(
          Object.fromEntries(cases.map((c) => [c.what, c.accepted])),
        );
      },
    );
  });
});
