/**
 * The inbound webhook (spec 2.2-2.4, 4.2, 5.2, 7.1) against a real ingress process, Kafka and
 * registry: one test per rule, asserting the exact response body and what is (or is not) on
 * partner-events, decoded through the registry. Every response is validated against the
 * OpenAPI document the ingress serves.
 */
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import Ajv2020 from 'ajv/dist/2020';
import { TestFixture } from '../../../test/helpers/fixture';
import { uniqueName, waitFor } from '../../../test/helpers/infrastructure';
import { postWebhook, readPartnerEvents, webhook, type RunningIngress } from '../../../test/helpers/ingress';

let fixture: TestFixture;
let ingress: RunningIngress;
let keyA: string;
let keyB: string;
let openapi: {
  paths: Record<string, { post: { responses: Record<string, { content: { 'application/json': { schema: object } } }> } }>;
  components: object;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validated: number[] = [];

/** Checks a response body against the served OpenAPI document. */
function expectDocumented(status: number, json: unknown): void {
  const path = Object.keys(openapi.paths)[0]!;
  const documented = openapi.paths[path]!.post.responses[String(status)];
  expect(documented).toBeDefined();
  const validate = ajv.compile({ ...documented!.content['application/json'].schema, components: openapi.components });
  expect(validate(json) ? [] : validate.errors).toEqual([]);
  validated.push(status);
}

/** Posts and checks the response against the served OpenAPI document. */
async function post(body: unknown, apiKey: string | null = keyA, headers: Record<string, string> = {}) {
  const response = await postWebhook(ingress.webhookUrl, apiKey ?? undefined, body, headers);
  expectDocumented(response.status, response.json);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return response;
}

/** Sends raw bytes on a new connection; reads the response until the server closes it. */
function rawRequest(request: string): Promise<{ status: number; headers: Record<string, string>; json: unknown; closed: boolean }> {
  const { hostname, port } = new URL(ingress.webhookUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = body;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, json, closed: true });
    });
  });
}

const error = (code: number, error_code: string, message: string | RegExp) => ({
  status: 'failed',
  data: null,
  message: typeof message === 'string' ? message : expect.stringMatching(message),
  code,
  error_code,
});

beforeAll(async () => {
  fixture = await TestFixture.open('ingress');
  keyA = await fixture.partners.create('partner-a');
  keyB = await fixture.partners.create('partner-b');
  ingress = await fixture.startIngress({ INGRESS_BODY_LIMIT_BYTES: '4096', IDEMPOTENCY_WAIT_MS: '3000' });
  openapi = (await (await fetch(`${ingress.url}/openapi.json`)).json()) as typeof openapi;
  await waitFor(async () => (await postWebhook(ingress.webhookUrl, keyB, webhook())).status === 200, 'partner-b to be known', 15_000);
}, 120_000);

afterAll(() => fixture?.close());

describe('POST /api/integration/partner/webhook', () => {
  test('when a valid webhook arrives, then it answers the 2.3 body and the record is on partner-events, type normalised', async () => {
    const body = webhook({
      request_id: 'ok-1',
      transaction_number: 'TRX-OK-1',
      transaction_type: 'policy',
      status: 'POLICY_ACTIVE',
      extra_field: 'ignored',
    });
    const response = await post(body);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      status: 'success',
      data: {
        request_id: 'ok-1',
        transaction_number: 'TRX-OK-1',
        transaction_type: 'POLICY',
        journey_status: 'WEBHOOK_RECEIVED',
        status: 'COMPLETED',
      },
      message: 'Webhook received',
      code: 200,
      request_id: 'ok-1',
    });
    const records = (await readPartnerEvents(fixture.prefix)).filter((r) => r.value.request_id === 'ok-1');
    expect(records).toHaveLength(1);
    expect(records[0]!.key).toBe('TRX-OK-1');
    expect(records[0]!.value).toMatchObject({
      partner_id: 'partner-a',
      transaction_number: 'TRX-OK-1',
      transaction_type: 'POLICY',
      status: 'POLICY_ACTIVE',
      documents: [{ type: 'POLICY_CERTIFICATE', url: 'https://docs.example/cert.pdf', filename: 'cert.pdf' }],
      payload_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(records[0]!.value).not.toHaveProperty('extra_field');
  });

  test('a transaction_number beyond ASCII is echoed in the 2.3 body as sent, with a Content-Length in bytes; its replay is the same', async () => {
    const requestId = uniqueName('utf8');
    const transactionNumber = `TRX-ü-€-😀-${requestId}`;
    const body = webhook({ request_id: requestId, transaction_number: transactionNumber });
    const first = await post(body);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ data: { transaction_number: transactionNumber } });
    expect(Number(first.headers.get('content-length'))).toBe(Buffer.byteLength(first.text));
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(first.text.length); // multi-byte characters in it
    const replay = await post(body);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('content-length')).toBe(first.headers.get('content-length'));
  });

  test('when x-api-key is missing, unknown, revoked, expired, or the partner is disabled, then 401 INVALID_API_KEY_ERR and nothing is written', async () => {
    await fixture.partners.create('partner-c');
    const revoked = await fixture.partners.addKey('partner-c');
    // Long enough to still be valid after the steps below on a loaded machine; waited out exactly.
    const expiresAt = Date.now() + 8000;
    const expiring = await fixture.partners.addKey('partner-c', expiresAt);
    await fixture.partners.revoke('partner-c', revoked.keyId);
    const marker = uniqueName('auth');
    const body = webhook({ transaction_number: marker });

    expect((await post(body, null)).json).toEqual(error(401, 'INVALID_API_KEY_ERR', 'x-api-key header is missing'));
    expect((await post(body, `hsk_${'x'.repeat(43)}`)).json).toEqual(error(401, 'INVALID_API_KEY_ERR', 'x-api-key is not valid'));
    expect((await post(body, 'not-even-a-key')).json).toEqual(error(401, 'INVALID_API_KEY_ERR', 'x-api-key is not valid'));
    // Probes use unmarked bodies: until a change reaches the ingress they are (rightly) accepted.
    await waitFor(
      async () => (await postWebhook(ingress.webhookUrl, revoked.key, webhook())).status === 401,
      'the revocation to reach the ingress',
      10_000,
    );
    expect((await post(body, revoked.key)).json).toEqual(error(401, 'INVALID_API_KEY_ERR', 'x-api-key is not valid'));
    expect((await post(webhook(), expiring.key)).status).toBe(200); // valid until it expires
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now() + 100)));
    expect((await post(body, expiring.key)).json).toEqual(error(401, 'INVALID_API_KEY_ERR', 'x-api-key is not valid'));
    const active = await fixture.partners.addKey('partner-c');
    await waitFor(
      async () => (await postWebhook(ingress.webhookUrl, active.key, webhook())).status === 200,
      'the new key to reach the ingress',
      10_000,
    );
    await fixture.partners.setStatus('partner-c', 'DISABLED');
    await waitFor(
      async () => (await postWebhook(ingress.webhookUrl, active.key, webhook())).status === 401,
      'the disable to reach the ingress',
      10_000,
    );
    expect((await post(body, active.key)).json).toEqual(error(401, 'INVALID_API_KEY_ERR', 'x-api-key is not valid'));

    const written = (await readPartnerEvents(fixture.prefix)).filter((r) => r.value.transaction_number === marker);
    expect(written).toEqual([]);
    // Logs never carry the key (401 lines carry the reason, 200 lines the partner and request id).
    for (const key of [keyA, revoked.key, expiring.key, active.key]) expect(ingress.output()).not.toContain(key);
  }, 60_000);

  test('when Content-Type is not application/json (UTF-8), then 415; a charset=utf-8 parameter is fine', async () => {
    expect((await post(webhook(), keyA, { 'content-type': 'text/plain' })).json).toEqual(
      error(415, 'UNSUPPORTED_MEDIA_TYPE_ERR', 'Content-Type must be application/json'),
    );
    expect((await post(webhook(), keyA, { 'content-type': 'application/json; charset=iso-8859-1' })).status).toBe(415);
    expect((await post(webhook(), keyA, { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(200);
  });

  test('when the body is malformed JSON, not an object, or too large, then a 4xx contract body, never a 500 or HTML', async () => {
    expect((await post('{"transaction_number": "T-1",', keyA)).json).toEqual(
      error(400, 'INVALID_PAYLOAD_VALIDATION_ERR', /^the body is not valid JSON: /),
    );
    expect((await post('', keyA)).json).toEqual(error(400, 'INVALID_PAYLOAD_VALIDATION_ERR', /^the body is not valid JSON/));
    expect((await post('[1,2]', keyA)).json).toEqual(error(400, 'INVALID_PAYLOAD_VALIDATION_ERR', 'the body must be a JSON object'));
    expect((await post('"text"', keyA)).json).toEqual(error(400, 'INVALID_PAYLOAD_VALIDATION_ERR', 'the body must be a JSON object'));
    expect((await post(webhook({ padding: 'x'.repeat(5000) }), keyA)).json).toEqual(
      error(413, 'PAYLOAD_TOO_LARGE_ERR', 'the body is larger than 4096 bytes'),
    );
  });

  test('when the body is not UTF-8 or a string holds a lone surrogate, then 400 says so, and nothing is written', async () => {
    const marker = uniqueName('unicode');
    const invalidUtf8 = Buffer.concat([
      Buffer.from(JSON.stringify(webhook({ transaction_number: marker })).slice(0, -1)),
      Buffer.from(',"x":"\xff"}', 'latin1'),
    ]);
    expect((await post(invalidUtf8)).json).toEqual(
      error(400, 'INVALID_PAYLOAD_VALIDATION_ERR', 'the body is not valid UTF-8 (RFC 8259 requires JSON to be UTF-8)'),
    );
    const loneSurrogate = JSON.stringify(webhook({ transaction_number: marker })).replace(`"${marker}"`, `"${marker}\\ud800"`);
    expect((await post(loneSurrogate)).json).toEqual(
      error(
        400,
        'INVALID_PAYLOAD_VALIDATION_ERR',
        'transaction_number holds a lone surrogate (\\uD800-\\uDFFF without its pair), which is not valid Unicode',
      ),
    );
    // A surrogate pair written as escapes is one character, and fine.
    const pair = JSON.stringify(webhook({ status: 'x' })).replace('"x"', '"\\ud83d\\ude00"');
    expect((await post(pair)).status).toBe(200);
    expect((await readPartnerEvents(fixture.prefix)).filter((r) => String(r.value.transaction_number).startsWith(marker))).toEqual([]);
  });

  test('when the Content-Encoding is not identity, gzip, deflate or br (zstd too), then 415 with Accept-Encoding; those four are decoded', async () => {
    const text = () => JSON.stringify(webhook());
    for (const [coding, body] of [
      ['compress', text()],
      ['zstd', zstdCompressSync(text())],
      ['gzip, br', brotliCompressSync(gzipSync(text()))],
    ] as const) {
      const refused = await post(body, keyA, { 'content-encoding': coding });
      expect(refused.json).toEqual(
        error(415, 'UNSUPPORTED_MEDIA_TYPE_ERR', `Content-Encoding "${coding}" is not supported (identity, gzip, deflate or br are)`),
      );
      expect(refused.headers.get('accept-encoding')).toBe('gzip, deflate, br');
    }
    const documented = openapi.paths[Object.keys(openapi.paths)[0]!]!.post.responses['415'] as { headers?: Record<string, unknown> };
    expect(documented.headers?.['Accept-Encoding']).toMatchObject({ schema: { const: 'gzip, deflate, br' } });
    for (const [coding, encode] of [
      ['identity', (t: string) => Buffer.from(t)],
      ['gzip', gzipSync],
      ['GZIP', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      expect({ coding, status: (await post(encode(text()), keyA, { 'content-encoding': coding })).status }).toEqual({
        coding,
        status: 200,
      });
    }
  });

  test('a document url gets 200 exactly when the served schema accepts it (the cases of issue 16 and other edges)', async () => {
    const schemaAccepts = ajv.compile({ $ref: '#/components/schemas/WebhookRequest', components: openapi.components });
    for (const [url, expected] of [
      ['http://a:99999/', 400],
      ['http://a\u0094b/', 400],
      ['http://a/\u0085', 400],
      ['http://a/\u00a0', 400],
      ['http://user@a/', 400],
      ['http://a/b\\c', 400],
      ['http://a:65535/x', 200],
      ['http://[::1]/', 200],
      ['https://d.example/ü?q=€#😀', 200],
    ] as const) {
      const body = webhook({ documents: [{ type: 'P', url }] });
      const response = await post(body);
      expect({ url, status: response.status, schema: schemaAccepts(body) }).toEqual({ url, status: expected, schema: expected === 200 });
    }
  });

  test("when Node's HTTP parser refuses a request (headers too large, not HTTP), then the contract's JSON body and the connection closes", async () => {
    const tooLarge = await rawRequest(
      `POST ${new URL(ingress.webhookUrl).pathname} HTTP/1.1\r\nHost: x\r\nx-api-key: ${'k'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect(tooLarge.status).toBe(431);
    expect(tooLarge.json).toEqual(error(431, 'REQUEST_HEADERS_TOO_LARGE_ERR', 'the request headers are larger than the server accepts'));
    const garbage = await rawRequest('HELLO\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(garbage.json).toEqual(error(400, 'MALFORMED_REQUEST_ERR', 'the request is not valid HTTP/1.1'));
    for (const response of [tooLarge, garbage]) {
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers.connection).toBe('close');
      expect(response.closed).toBe(true);
      expectDocumented(response.status, response.json);
    }
  });

  test('when fields are missing or invalid, then 400 names every problem by field path, and nothing is written', async () => {
    const marker = uniqueName('invalid');
    const response = await post({
      transaction_number: marker,
      transaction_type: 'quote',
      status: 5,
      documents: [{ type: 'A' }, { type: '', url: 'ftp://x/y' }],
    });
    expect(response.json).toEqual(
      error(
        400,
        'INVALID_PAYLOAD_VALIDATION_ERR',
        'transaction_type must be POLICY or CLAIM (any case); status must be a string; documents[0].url is required; documents[1].type must not be empty; documents[1].url must be an absolute http or https URL',
      ),
    );
    expect((await post({ ...webhook(), documents: [] })).json).toEqual(
      error(400, 'INVALID_PAYLOAD_VALIDATION_ERR', 'documents must contain at least one item'),
    );
    expect((await post({ status: 'X' })).json).toEqual(
      error(400, 'INVALID_PAYLOAD_VALIDATION_ERR', 'transaction_number is required; transaction_type is required; documents is required'),
    );
    expect((await readPartnerEvents(fixture.prefix)).filter((r) => r.value.transaction_number === marker)).toEqual([]);
  });

  test('when the same request_id comes again with the same payload (keys reordered, other whitespace), then the stored response and no second record', async () => {
    const body = webhook({ request_id: uniqueName('same') });
    const first = await post(body);
    const reordered = `{ "documents": ${JSON.stringify(body.documents)},\n "status": "${String(body.status)}", "transaction_type": "POLICY", "transaction_number": "${String(body.transaction_number)}", "request_id": "${String(body.request_id)}" }`;
    const again = await post(reordered);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect((await readPartnerEvents(fixture.prefix)).filter((r) => r.value.request_id === body.request_id)).toHaveLength(1);
  });

  test('when the same request_id comes with a different payload, then 409 and nothing new is written', async () => {
    const body = webhook({ request_id: uniqueName('conflict') });
    expect((await post(body)).status).toBe(200);
    expect((await post({ ...body, status: 'POLICY_CANCELLED' })).json).toEqual(
      error(409, 'IDEMPOTENCY_KEY_REUSED_ERR', 'request_id was already used with a different payload'),
    );
    expect((await post({ ...body, unknown_field: 1 })).status).toBe(409); // unknown fields count too
    expect((await readPartnerEvents(fixture.prefix)).filter((r) => r.value.request_id === body.request_id)).toHaveLength(1);
  });

  test('numbers count by their exact value under one request_id: 1.0 and 1 are the same, integers beyond a double and overflowing ones are not', async () => {
    // One body per request_id (webhook() makes a new transaction_number each call), its amount written as given.
    const bodies = new Map<string, string>();
    const withNumber = (id: string, lexeme: string) => {
      if (!bodies.has(id)) bodies.set(id, JSON.stringify(webhook({ request_id: id, amount: 0 })));
      return bodies.get(id)!.replace('"amount":0', `"amount":${lexeme}`);
    };
    const same = uniqueName('numbers-same');
    expect((await post(withNumber(same, '1'))).status).toBe(200);
    expect((await post(withNumber(same, '1.0'))).status).toBe(200);
    expect((await post(withNumber(same, '10e-1'))).status).toBe(200);
    const big = uniqueName('numbers-big');
    expect((await post(withNumber(big, '123456789012345678901234567890'))).status).toBe(200);
    expect((await post(withNumber(big, '123456789012345678901234567891'))).status).toBe(409);
    const overflow = uniqueName('numbers-overflow');
    expect((await post(withNumber(overflow, '1e400'))).status).toBe(200);
    expect((await post(withNumber(overflow, '-1e400'))).status).toBe(409);
    expect((await post(withNumber(overflow, 'null'))).status).toBe(409);
    expect((await post(withNumber(overflow, '1E+400'))).status).toBe(200);
    const events = await readPartnerEvents(fixture.prefix);
    for (const id of [same, big, overflow]) expect(events.filter((r) => r.value.request_id === id)).toHaveLength(1);
  });

  test('when a request has no request_id, then every request is a new webhook, and the response carries an assigned id', async () => {
    const body = webhook({ transaction_number: uniqueName('noid') });
    delete body.request_id;
    const first = await post(body);
    const second = await post(body);
    expect(first.status).toBe(200);
    expect((first.json.request_id as string).length).toBeGreaterThan(0);
    expect(first.json.request_id).not.toBe(second.json.request_id);
    const records = (await readPartnerEvents(fixture.prefix)).filter((r) => r.value.transaction_number === body.transaction_number);
    expect(records).toHaveLength(2);
    expect(records.every((r) => r.value.request_id === null)).toBe(true);
  });

  test('request_ids are scoped per partner: the same id from two partners is two webhooks', async () => {
    const body = webhook({ request_id: uniqueName('scoped') });
    expect((await post(body, keyA)).status).toBe(200);
    expect((await post(body, keyB)).status).toBe(200);
    const records = (await readPartnerEvents(fixture.prefix)).filter((r) => r.value.request_id === body.request_id);
    expect(records.map((r) => r.value.partner_id).sort()).toEqual(['partner-a', 'partner-b']);
  });

  test('other methods and paths answer JSON (405 with Allow, 404), and /openapi.json describes every status it answers', async () => {
    const get = await fetch(ingress.webhookUrl);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(await get.json()).toEqual(error(405, 'METHOD_NOT_ALLOWED_ERR', 'only POST is allowed here'));
    const missing = await fetch(`${ingress.url}/api/integration/partner/webhooks`, { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual(error(404, 'NOT_FOUND_ERR', 'no such resource'));
    expect(openapi).toMatchObject({ openapi: '3.1.0' });
    expect(new Set(validated)).toEqual(new Set([200, 400, 401, 409, 413, 415, 431]));
  });

  test('metrics count requests by outcome and partner, replays and conflicts', async () => {
    const text = await (await fetch(`${ingress.opsUrl}/metrics`)).text();
    expect(text).toMatch(/hookstream_ingress_requests_total\{partner="partner-a",status_code="200",error_code="",service="ingress"\} \d+/);
    expect(text).toMatch(
      /hookstream_ingress_requests_total\{partner="unknown",status_code="401",error_code="INVALID_API_KEY_ERR",service="ingress"\} [1-9]/,
    );
    expect(text).toMatch(/hookstream_ingress_idempotent_replays_total\{service="ingress"\} [1-9]/);
    expect(text).toMatch(/hookstream_ingress_idempotency_conflicts_total\{service="ingress"\} [1-9]/);
    expect(text).toMatch(/hookstream_ingress_request_duration_seconds_bucket/);
    expect(text).toMatch(/hookstream_ingress_produce_duration_seconds_count\{service="ingress"\} [1-9]/);
  });
});
