import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { jwtVerify } from 'jose';
import { Webhook } from 'standardwebhooks';
import { parse as parseYaml } from 'yaml';
import { waitFor } from '../../../test/helpers/infrastructure';
import { RECEIVER_DEFAULT_BODY, policyEvent, readTopicUntil } from '../../../test/helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';

/**
 * Outbound callbacks end to end on a real broker and registry: a policy-status event is
 * published, the policy-status-consumer and callback-sender processes (compiled code) build,
 * sign and POST it to a receiver in this test, which verifies it independently of the
 * project's signing code (node:crypto by hand, jose, the standardwebhooks package).
 */
let outbound: OutboundFixture;

beforeAll(async () => {
  outbound = await OutboundFixture.open('outbound', {
    retryDelaysMs: retryTierDelays(60_000),
    // Six endpoints fail on purpose below; the circuit must not open on their partner mid-test.
    breaker: { failures: 100 },
    env: { UNKNOWN_PARTNER_GRACE_MS: '1000' },
  });
  await Promise.all([outbound.startConsumer(), outbound.startSender()]);
}, 120_000);

afterAll(() => outbound?.close());

/** Onboards a partner whose one endpoint is `url`, publishes one event for it, and returns what the receiver got. */
async function deliverOne(
  auth: Record<string, unknown>,
  options: { body?: Record<string, unknown>; policy?: Record<string, unknown> } = {},
) {
  const partnerId = uniquePartnerId('p');
  const target = await outbound.receiver();
  await outbound.partners.create(partnerId, {
    callback_endpoints: [{ url: `${target.url}/callbacks` }],
    outbound_auth: auth,
    ...(options.body ? { body: options.body } : {}),
  });
  const event = policyEvent(partnerId, {}, options.policy);
  await outbound.events.publish([event]);
  const [request] = await waitFor(() => target.requests.length > 0 && target.requests, 'the callback to arrive', 30_000);
  return { request: request!, event, partnerId };
}

const header = (request: { headers: Record<string, string | string[] | undefined> }, name: string) => {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
};

describe('when a policy-status event is published for a partner, then the partner receives its callback, signed per its method (spec 5.1)', () => {
  test('API key: the agreed header carries the key, with JSON content type and the delivery headers', async () => {
    const { request, event } = await deliverOne({ method: 'API_KEY', header_name: 'X-API-Key', api_key: 'partner-key-123' });
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/callbacks');
    expect(header(request, 'x-api-key')).toBe('partner-key-123');
    expect(header(request, 'content-type')).toBe('application/json');
    expect(header(request, 'x-hookstream-delivery-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(header(request, 'x-hookstream-event-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(header(request, 'x-hookstream-attempt')).toBe('1');
    // The full 2.1 body: exactly the policy as published, absent fields omitted, no internal fields.
    expect(request.body).toEqual(event.policy);
  });

  test('HMAC_SHA256: X-Signature is Base64(HMAC-SHA256(secret, api_key|timestamp|raw body)) over the exact bytes received', async () => {
    const { request, partnerId } = await deliverOne({ method: 'HMAC_SHA256', api_key: 'hk-1', secret: 'hmac-shared-secret' });
    const timestamp = header(request, 'x-timestamp');
    expect(header(request, 'x-api-key')).toBe('hk-1');
    expect(new Date(timestamp).toISOString()).toBe(timestamp); // UTC ISO 8601
    expect(Math.abs(Date.now() - Date.parse(timestamp))).toBeLessThan(60_000);
    const expected = createHmac('sha256', 'hmac-shared-secret')
      .update(Buffer.concat([Buffer.from(`hk-1|${timestamp}|`), request.raw]))
      .digest();
    expect(timingSafeEqual(Buffer.from(header(request, 'x-signature'), 'base64'), expected)).toBe(true);

    // Its outcome records the headers sent, the key's value redacted, everything else (the signature too) as received.
    const outcomes = await readTopicUntil<{ partner_id: string; outcome: string; request_headers_json: string | null }>(
      `${outbound.prefix}callback-outcomes`,
      (records) => records.some((r) => r.value.partner_id === partnerId),
    );
    const recordedJson = outcomes.find((r) => r.value.partner_id === partnerId)!.value.request_headers_json!;
    expect(JSON.parse(recordedJson)).toEqual({
      'content-type': 'application/json',
      'X-API-Key': '[redacted]',
      'X-Timestamp': timestamp,
      'X-Signature': header(request, 'x-signature'),
      'x-hookstream-delivery-id': header(request, 'x-hookstream-delivery-id'),
      'x-hookstream-event-id': header(request, 'x-hookstream-event-id'),
      'x-hookstream-attempt': '1',
    });
    for (const secret of ['hk-1', 'hmac-shared-secret']) expect(recordedJson).not.toContain(secret);
  });

  test('MD5 in a header: 32 lowercase hex of the agreed concatenation', async () => {
    const { request, event } = await deliverOne({
      method: 'MD5',
      secret: 'md5-secret',
      parts: [{ kind: 'SECRET' }, { kind: 'BODY_FIELD', path: 'policy_number' }, { kind: 'LITERAL', value: 'v1' }],
      placement: 'header',
      target: 'X-Sign',
    });
    const expected = createHash('md5').update(`md5-secret${event.policy.policy_number}v1`).digest('hex');
    expect(header(request, 'x-sign')).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{32}$/);
  });

  test('MD5 in a body field with a reduced mapping (examples/partners/md5-reduced-body.yaml): partner_transaction_number, start_protection_at as a date only, status and Sign', async () => {
    const file = path.join(__dirname, '..', '..', '..', 'examples', 'partners', 'md5-reduced-body.yaml');
    const example = parseYaml(readFileSync(file, 'utf8')) as { outbound_auth: Record<string, unknown>; body: Record<string, unknown> };
    const { request, event } = await deliverOne({ ...example.outbound_auth, secret: 'travel-secret' }, { body: example.body });
    const ptn = event.policy.partner_transaction_number;
    const sign = createHash('md5').update(`travel-secret2026-01-08${ptn}`).digest('hex');
    expect(request.body).toEqual({
      partner_transaction_number: ptn,
      start_protection_at: '2026-01-08',
      status: 'POLICY_ACTIVE',
      Sign: sign,
    });
    expect(Object.keys(request.body)).toEqual(['partner_transaction_number', 'start_protection_at', 'status', 'Sign']);
  });

  test('Bearer static: Authorization carries the agreed token', async () => {
    const { request } = await deliverOne({ method: 'BEARER_STATIC', token: 'static-token-xyz' });
    expect(header(request, 'authorization')).toBe('Bearer static-token-xyz');
  });

  test('Bearer JWT: verified with the shared secret, algorithm and issuer; exp is 5 minutes after iat; custom claims included', async () => {
    const { request } = await deliverOne({
      method: 'BEARER_JWT',
      secret: 'a-jwt-shared-secret-of-enough-length',
      algorithm: 'HS384',
      issuer: 'HOOKSTREAM',
      extra_claims: { partner_tier: 'gold' },
    });
    const token = header(request, 'authorization').replace(/^Bearer /, '');
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode('a-jwt-shared-secret-of-enough-length'), {
      algorithms: ['HS384'],
      issuer: 'HOOKSTREAM',
    });
    expect(protectedHeader.alg).toBe('HS384');
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(payload.partner_tier).toBe('gold');
  });

  test('Bearer fetched: the token comes from the partner auth endpoint; a 401 fetches a new one once and the retry succeeds', async () => {
    let issued = 0;
    // The token endpoint answers with a new token each time.
    const tokenServer = await startTokenServer(() => `tok-${++issued}`);
    const partnerId = uniquePartnerId('fetched');
    const target = await outbound.receiver((request) => (header(request, 'authorization') === 'Bearer tok-1' ? 401 : 200));
    await outbound.partners.create(partnerId, {
      callback_endpoints: [{ url: `${target.url}/cb` }],
      outbound_auth: {
        method: 'BEARER_FETCHED',
        token_url: `${tokenServer.url}/oauth/token`,
        request_body: '{"client_id":"hookstream","client_secret":"cs-1"}',
        token_path: 'access_token',
      },
    });
    await outbound.events.publish([policyEvent(partnerId)]);
    await waitFor(() => target.requests.length >= 2, 'the retried callback', 30_000);
    expect(target.requests.map((r) => header(r, 'authorization'))).toEqual(['Bearer tok-1', 'Bearer tok-2']);
    expect(tokenServer.bodies).toEqual([
      '{"client_id":"hookstream","client_secret":"cs-1"}',
      '{"client_id":"hookstream","client_secret":"cs-1"}',
    ]);
    await tokenServer.close();
  });

  test('Basic: Authorization is Basic base64(username:password)', async () => {
    const { request } = await deliverOne({ method: 'BASIC', username: 'acme', password: 'pä55:word' });
    const [scheme, credential] = header(request, 'authorization').split(' ');
    expect(scheme).toBe('Basic');
    expect(Buffer.from(credential!, 'base64').toString('utf8')).toBe('acme:pä55:word');
  });

  test('Standard Webhooks: the official standardwebhooks package verifies the request', async () => {
    const secret = `whsec_${Buffer.from('a-standard-webhooks-secret-32-bytes!').toString('base64')}`;
    const { request } = await deliverOne({ method: 'STANDARD_WEBHOOKS', secret });
    const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
    expect(() => new Webhook(secret).verify(request.raw.toString('utf8'), headers)).not.toThrow();
    expect(headers['webhook-id']).toBe(headers['x-hookstream-delivery-id']);
    expect(() => new Webhook(secret).verify(request.raw.toString('utf8').replace('POLICY_ACTIVE', 'POLICY_CANCELLED'), headers)).toThrow();
  });
});

describe('when the partner has a body mapping, then the body follows it (spec 2.1)', () => {
  test('a rename sends status as actual_status, in place, with every other field unchanged', async () => {
    const { request, event } = await deliverOne(
      { method: 'API_KEY', api_key: 'k' },
      { body: { shape: 'full', rules: [{ source: 'status', target: 'actual_status' }] } },
    );
    const { status, ...rest } = event.policy;
    expect(request.body).toEqual({ ...rest, actual_status: status });
    const keys = Object.keys(request.body);
    expect(keys.indexOf('actual_status')).toBe(Object.keys(event.policy).indexOf('status'));
  });

  test('the simplified policies flow sends partner_transaction_number, transaction_number, product_code and policies', async () => {
    const policies = [
      {
        number: 'P-1',
        status: 'POLICY_ACTIVE',
        start_protection_at: '2026-01-08T00:00:00+07:00',
        end_protection_at: '2027-01-07T23:59:59+07:00',
        premium_amount: 125000,
        documents: [{ type: 'POLICY_CERTIFICATE', filename: 'p1.pdf', alias: 'E-certificate', url: 'https://docs.example/p1.pdf' }],
      },
    ];
    const { request, event } = await deliverOne(
      { method: 'API_KEY', api_key: 'k' },
      { body: { shape: 'simplified_policies' }, policy: { policies } },
    );
    expect(request.body).toEqual({
      partner_transaction_number: event.policy.partner_transaction_number,
      transaction_number: event.policy.transaction_number,
      product_code: event.policy.product_code,
      policies,
    });
  });

  test('the full body carries every insured detail shape as the contract writes it', async () => {
    const insureds = [
      { uuid: 'u1', type: 'USER', detail: { full_name: 'Siti', age: 35, additional_info: { tier: 'GOLD' } } },
      {
        uuid: 'g1',
        type: 'GADGET',
        detail: { brand: 'Samsung', price: 12499000 },
        documents: [{ type: 'RECEIPT', filename: 'r.pdf', url: 'https://d.example/r.pdf' }],
      },
      { uuid: 'v1', type: 'VEHICLE', detail: { plate_number: 'B 1234 XY', year: 2022 } },
      { uuid: 't1', type: 'FLIGHT', detail: { number: 'GA-404', departure_time_offset: 7, additional_info: { seat: '12A' } } },
      { uuid: 'pet', type: 'PET', detail: { breed: 'Shiba', pure_breed: true, vaccination: ['rabies', { name: 'parvo', year: 2025 }] } },
      { uuid: 'l1', type: 'LOAN', detail: { loan_amount: 5000000, tenure_period: 'MONTH' } },
      { uuid: 's1', type: 'SENDER', detail: { full_name: 'Budi', additional_data: { city: 'Jakarta', zipcode: '10110' } } },
      { uuid: 'x1', type: 'EXPERIENCE', detail: { venue: 'Ubud', tickets: 2, guided: true } },
    ];
    const { request, event } = await deliverOne({ method: 'API_KEY', api_key: 'k' }, { policy: { insureds } });
    expect(request.body).toEqual(event.policy);
  });
});

describe('when the partner answers, then only a 200 is delivered and the outcome is on callback-outcomes (spec 4.1, 7.2)', () => {
  test('a 201, a 204, a 500, a timeout and a refused connection are failed attempts; a 200 is delivered; each answer its excerpt', async () => {
    // The 500's answer is longer than the excerpt, a 2-byte 'é' across its 1,024th byte: it is cut before the 'é'.
    const long = `${'E'.repeat(1023)}é and more`;
    const answers = { s200: 200, s201: 201, s204: 204, s500: { status: 500, body: long } } as const;
    const target = await outbound.receiver((request) =>
      request.url === '/hang' ? 'hang' : answers[request.url.slice(1) as keyof typeof answers],
    );
    const closedPort = await unusedPort();
    const cases = [
      { endpoint_id: 's200', url: `${target.url}/s200` },
      { endpoint_id: 's201', url: `${target.url}/s201` },
      { endpoint_id: 's204', url: `${target.url}/s204` },
      { endpoint_id: 's500', url: `${target.url}/s500` },
      { endpoint_id: 'hang', url: `${target.url}/hang`, timeout_ms: 500 },
      { endpoint_id: 'refused', url: `http://127.0.0.1:${closedPort}/cb` },
    ];
    const partnerId = uniquePartnerId('statuses');
    await outbound.partners.create(partnerId, { callback_endpoints: cases, outbound_auth: { method: 'API_KEY', api_key: 'k' } });
    const event = policyEvent(partnerId);
    await outbound.events.publish([event]);

    type Outcome = {
      partner_id: string;
      endpoint_id: string;
      outcome: string;
      http_status: number | null;
      error_class: string | null;
      attempt: number;
      response_excerpt: string | null;
    };
    const outcomes = await readTopicUntil<Outcome>(
      `${outbound.prefix}callback-outcomes`,
      (records) => records.filter((r) => r.value.partner_id === partnerId).length >= cases.length,
    );
    const byEndpoint = Object.fromEntries(
      outcomes
        .filter((r) => r.value.partner_id === partnerId)
        .map((r) => [
          r.value.endpoint_id,
          [r.value.outcome, r.value.http_status, r.value.error_class, r.value.attempt, r.value.response_excerpt],
        ]),
    );
    expect(byEndpoint).toEqual({
      s200: ['DELIVERED', 200, null, 1, RECEIVER_DEFAULT_BODY],
      s201: ['FAILED_ATTEMPT', 201, 'HTTP_STATUS', 1, RECEIVER_DEFAULT_BODY],
      s204: ['FAILED_ATTEMPT', 204, 'HTTP_STATUS', 1, ''],
      s500: ['FAILED_ATTEMPT', 500, 'HTTP_STATUS', 1, 'E'.repeat(1023)],
      hang: ['FAILED_ATTEMPT', null, 'TIMEOUT', 1, null],
      refused: ['FAILED_ATTEMPT', null, 'CONNECTION_REFUSED', 1, null],
    });
    // Each failure waits in the first retry tier with what happened in its headers.
    const retries = await readTopicUntil<{ partner_id: string; endpoint_id: string }>(
      `${outbound.prefix}callback-retry-1`,
      (records) => records.filter((r) => r.value.partner_id === partnerId).length >= 5,
    );
    const s500 = retries.find((r) => r.value.partner_id === partnerId && r.value.endpoint_id === 's500')!;
    expect(s500.headers?.['hookstream-attempts']?.toString()).toBe('1');
    expect(s500.headers?.['hookstream-last-error']?.toString()).toBe('HTTP 500');
    expect(Number(s500.headers?.['hookstream-due-at']?.toString())).toBeGreaterThan(Date.now() + 30_000);
  });
});

describe('when an event cannot become callbacks, then it is dead-lettered with the reason and the consumer goes on', () => {
  test('an event for an unknown partner goes to policy-status-dlq as UNKNOWN_PARTNER; the next event is delivered', async () => {
    const lost = policyEvent('no-such-partner');
    await outbound.events.publish([lost]);
    const { request, event } = await deliverOne({ method: 'API_KEY', api_key: 'k' });
    expect(request.body).toEqual(event.policy);
    const dead = await readTopicUntil<{ error_class: string; partner_id: string | null; reason: string }>(
      `${outbound.prefix}policy-status-dlq`,
      (records) => records.some((r) => r.key === lost.policy.policy_number),
    );
    const record = dead.find((r) => r.key === lost.policy.policy_number)!;
    expect(record.value.error_class).toBe('UNKNOWN_PARTNER');
    expect(record.value.partner_id).toBe('no-such-partner');
    expect(record.value.reason).toContain('no-such-partner');
  });
});

describe('when a policy-status record cannot be decoded, then it is dead-lettered as DECODE_ERROR with its raw bytes', () => {
  test('a value that is not Confluent-framed Avro', async () => {
    const producer = outbound.kafka.producer();
    await producer.connect();
    const garbage = Buffer.from('{"not":"avro"}');
    await producer.send({ topic: `${outbound.prefix}policy-status`, messages: [{ key: 'GARBAGE-1', value: garbage }] });
    await producer.disconnect();
    const dead = await readTopicUntil<{ error_class: string; original_value: Buffer; reason: string }>(
      `${outbound.prefix}policy-status-dlq`,
      (records) => records.some((r) => r.key === 'GARBAGE-1'),
    );
    const record = dead.find((r) => r.key === 'GARBAGE-1')!;
    expect(record.value.error_class).toBe('DECODE_ERROR');
    expect(Buffer.from(record.value.original_value).equals(garbage)).toBe(true);
    expect(record.value.reason).toMatch(/Confluent/);
    // The consumer went on.
    const { request, event } = await deliverOne({ method: 'API_KEY', api_key: 'k' });
    expect(request.body).toEqual(event.policy);
  });
});

/** A token endpoint answering {"access_token": next(), "expires_in": 3600}; records the request bodies. */
async function startTokenServer(next: () => string) {
  const bodies: string[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: next(), expires_in: 3600 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (bound, then released). */
function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
