/**
 * The partner API on a PostgreSQL database of its own, fed by the real pipeline
 * (support/portal-stack.ts): a partner sees its dead-lettered callback with every attempt in order,
 * the body exactly as it received it and the headers of each send (secrets redacted), recomputes
 * from the answer's verification the signature it received, resends it and sees it delivered; it
 * sees its webhook replayed and why its refused webhook was refused; another partner's credentials
 * find none of it on any route of the served spec; every answer fits that spec; bad input is
 * refused naming the field; pages and each filter of the list hold.
 */
import { createHmac } from 'node:crypto';
import { parseKeyring } from '@hookstream/runtime';
import { signToken } from '../src/adapters/signing/signed-tokens';
import { RECEIVER_DEFAULT_BODY } from '../../../test/helpers/outbound';
import { waitFor } from '../../../test/helpers/infrastructure';
import { A_API_KEY, A_SECRET, FAILURE_ANSWER, PortalStack } from './support/portal-stack';

let stack: PortalStack;
/** A portal token signed here, never recorded by the service: refused whatever its claims. */
const unrecorded = (keys: string, issuedAt: Date, partnerId: string) =>
  signToken(parseKeyring(keys, 'HOOKSTREAM_PORTAL_TOKEN_KEYS', 32), 'hookstream-portal', {
    id: 'not-issued',
    subject: partnerId,
    issuedAt,
    expiresAt: new Date(issuedAt.getTime() + 60_000),
  });

beforeAll(async () => {
  stack = await PortalStack.open('portal-api', 60);
  // The whole pipeline and a delivery log on a fresh database: a minute or more beside other suites.
}, 180_000);

afterAll(() => stack?.close());

type Verification = { method: string; steps: string[]; signed_string: string | null; signature_header: string | null };

/** The signature a partner computes from the answer's verification: HMAC-SHA256 of the signed string, «api_key» filled in, keyed with its secret. */
const recomputed = (verification: Verification) =>
  createHmac('sha256', A_SECRET).update(verification.signed_string!.replace('«api_key»', A_API_KEY), 'utf8').digest('base64');

test('a callback stack.failing until dead-lettered shows every attempt in order, and the body the partner received', async () => {
  const list = await waitFor(
    async () => {
      const answer = await stack.api.get('/api/portal/v1/deliveries?status=dead_lettered', stack.asA());
      const page = answer.json as { data: Array<{ delivery_id: string; policy_number: string }> };
      return page.data.length === 1 ? page : undefined;
    },
    'the dead-lettered delivery in the portal',
    60_000,
  );
  expect(list.data[0]!.policy_number).toBe('P-A-1');
  // The dead letter and the attempts come from different topics, projected in batches of their own:
  // the state may say dead-lettered a moment before the last attempts are in.
  const delivery = await waitFor(
    async () => {
      const detail = await stack.api.get(`/api/portal/v1/deliveries/${list.data[0]!.delivery_id}`, stack.asA());
      const found = (detail.json as { data: Record<string, unknown> & { attempts: Array<Record<string, unknown>> } }).data;
      return found.attempts.length === 10 ? found : undefined;
    },
    'its ten attempts in the portal',
    30_000,
  );
  // Nine sends, each from its tier and with the partner's answer, then the dead-lettering after the last.
  expect(delivery.attempts.map((a) => [a['outcome'], a['attempt'], a['tier'], a['http_status'], a['response_excerpt']])).toEqual([
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ['FAILED_ATTEMPT', n, n - 1, 500, FAILURE_ANSWER]),
    ['DEAD_LETTERED', 9, 8, 500, null],
  ]);
  expect(delivery).toMatchObject({ state: 'dead_lettered', attempt_count: 9, last_http_status: 500 });
  expect(delivery['body']).toBe(stack.failing.requests[0]!.raw.toString('utf8'));

  // Each send's headers as received, the API key's value redacted, the signature as sent; none on the dead-lettering.
  expect(stack.failing.requests).toHaveLength(9);
  const recorded = delivery.attempts.map((a) => a['request_headers'] as Record<string, string> | null);
  expect(recorded.at(-1)).toBeNull();
  recorded.slice(0, 9).forEach((headers, i) => {
    const received = stack.failing.requests[i]!.headers;
    expect(headers).toEqual({
      'content-type': 'application/json',
      'X-API-Key': '[redacted]',
      'X-Timestamp': received['x-timestamp'],
      'X-Signature': received['x-signature'],
      'x-hookstream-delivery-id': received['x-hookstream-delivery-id'],
      'x-hookstream-event-id': received['x-hookstream-event-id'],
      'x-hookstream-attempt': String(i + 1),
    });
  });
  // The verification rebuilds the string the latest send was signed over: the partner recomputes the signature it received.
  const verification = delivery['verification'] as Verification;
  expect(verification).toMatchObject({ method: 'HMAC_SHA256', signature_header: 'X-Signature' });
  expect(verification.steps.length).toBeGreaterThan(0);
  expect(recomputed(verification)).toBe(stack.failing.requests[8]!.headers['x-signature']);
  // Never a secret or the API key in the answer (a signature is there: the partner received it, and it reveals no secret).
  const answer = JSON.stringify(delivery);
  for (const secret of [A_SECRET, A_API_KEY]) expect(answer).not.toContain(secret);
});

test('the partner resends its dead-lettered callback: the same delivery, delivered at the first attempt after the nine failed', async () => {
  const [dead] = (
    (await stack.api.get('/api/portal/v1/deliveries?status=dead_lettered', stack.asA())).json as { data: Array<{ delivery_id: string }> }
  ).data;
  const id = dead!.delivery_id;
  const resent = await stack.api.post(`/api/portal/v1/deliveries/${id}/resend`, stack.asA(), { reason: 'endpoint fixed (ticket 42)' });
  expect(resent.status).toBe(202);
  expect(resent.json).toMatchObject({ data: { delivery_id: id, replay_count: 1 } });
  const delivered = await waitFor(
    async () => {
      const answer = (await stack.api.get(`/api/portal/v1/deliveries/${id}`, stack.asA())).json as {
        data: Record<string, unknown> & { state: string };
      };
      return answer.data.state === 'delivered' ? answer.data : undefined;
    },
    'the resent delivery delivered',
    60_000,
  );
  const attempts = delivered['attempts'] as Array<{
    attempt: number;
    outcome: string;
    http_status: number;
    response_excerpt: string | null;
  }>;
  expect(attempts.map((a) => `${a.outcome} ${a.attempt}:${a.http_status}`)).toEqual([
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `FAILED_ATTEMPT ${n}:500`),
    'DEAD_LETTERED 9:500',
    'DELIVERED 1:200',
  ]);
  expect(attempts.at(-1)?.response_excerpt).toBe(RECEIVER_DEFAULT_BODY);
  expect(delivered['attempt_count']).toBe(10);
  expect(delivered['replays']).toEqual([
    expect.objectContaining({ operator: `partner:${stack.partnerA}`, reason: 'endpoint fixed (ticket 42)', outcome: 'replayed' }),
  ]);
  expect(stack.failing.requests).toHaveLength(10);
  expect(stack.failing.requests[9]!.raw.equals(stack.failing.requests[0]!.raw)).toBe(true);
  // The verification follows the latest send: the resend's.
  expect(recomputed(delivered['verification'] as Verification)).toBe(stack.failing.requests[9]!.headers['x-signature']);

  // Delivered now: nothing to resend, and it says why.
  const again = await stack.api.post(`/api/portal/v1/deliveries/${id}/resend`, stack.asA(), {});
  expect(again.status).toBe(409);
  expect((again.json as { message: string }).message).toContain('delivered');
});

test('a partner sees its webhook accepted once and how often it sent it again (replayed)', async () => {
  type Summary = { webhook_id: string; transaction_number: string; replay_count: number; last_replayed_at: string | null };
  const replayed = await waitFor(
    async () => {
      const page = (await stack.api.get('/api/portal/v1/webhooks?transaction_number=TRX-A-1', stack.asA())).json as { data: Summary[] };
      return page.data[0]?.replay_count === 1 ? page.data : undefined;
    },
    "partner A's webhook shown replayed once",
    30_000,
  );
  expect(replayed).toHaveLength(1);
  const detail = (await stack.api.get(`/api/portal/v1/webhooks/${replayed[0]!.webhook_id}`, stack.asA())).json as {
    data: Summary & { replays: Array<{ received_at: string }> };
  };
  expect(detail.data.replays.map((r) => r.received_at)).toEqual([replayed[0]!.last_replayed_at]);
});

test('a partner sees why its webhook was refused, and only its own refusals', async () => {
  type Page = { data: Array<Record<string, unknown>>; next_cursor: string | null };
  const ofA = await waitFor(
    async () => {
      const page = (await stack.api.get('/api/portal/v1/rejected-webhooks', stack.asA())).json as Page;
      return page.data.length > 0 ? page : undefined;
    },
    "partner A's refused webhook in the portal",
    30_000,
  );
  expect(ofA.data).toEqual([
    expect.objectContaining({
      partner_id: stack.partnerA,
      request_id: 'REJ-A-1',
      http_status: 400,
      error_code: 'INVALID_PAYLOAD_VALIDATION_ERR',
      message: 'transaction_number is required',
      fields: ['transaction_number'],
      transaction_number: null,
    }),
  ]);
  const ofB = await waitFor(
    async () => {
      const page = (await stack.api.get('/api/portal/v1/rejected-webhooks?request_id=REJ-B-1', stack.asB())).json as Page;
      return page.data.length > 0 ? page : undefined;
    },
    "partner B's refused webhook in the portal",
    30_000,
  );
  expect(ofB.data.map((r) => [r['partner_id'], r['request_id'], r['fields']])).toEqual([[stack.partnerB, 'REJ-B-1', ['documents']]]);
  // A's request_id asked for by B: nothing.
  expect(((await stack.api.get('/api/portal/v1/rejected-webhooks?request_id=REJ-A-1', stack.asB())).json as Page).data).toEqual([]);

  // Opened: each field with its message, the headers as they arrived (credentials redacted), the body.
  const id = ofA.data[0]!['rejection_id'] as string;
  const opened = await stack.api.get(`/api/portal/v1/rejected-webhooks/${id}`, stack.asA());
  expect(opened.status).toBe(200);
  const detail = (opened.json as { data: Record<string, unknown> }).data;
  expect(detail).toMatchObject({
    rejection_id: id,
    request_id: 'REJ-A-1',
    problems: [{ field: 'transaction_number', message: 'transaction_number is required' }],
    headers_truncated: false,
    body_truncated: false,
  });
  const headers = detail['request_headers'] as Array<{ name: string; value: string }>;
  const valueOf = (name: string) => headers.filter((h) => h.name.toLowerCase() === name).map((h) => h.value);
  expect(valueOf('x-api-key')).toEqual(['[redacted]']);
  expect(valueOf('authorization')).toEqual(['[redacted]']);
  expect(valueOf('x-trace-id')).toEqual(['trace-A-1']);
  expect(valueOf('content-type')).toEqual(['application/json']);
  expect(JSON.stringify(detail)).not.toContain(stack.keyA);
  expect(JSON.stringify(detail)).not.toContain('not-for-us');
  const body = JSON.parse(detail['body'] as string) as Record<string, unknown>;
  expect(body['request_id']).toBe('REJ-A-1');
  expect(body).not.toHaveProperty('transaction_number');
  expect(detail['body_size']).toBe(Buffer.byteLength(detail['body'] as string));
  // B asking for A's: the same 404 as an id that does not exist, word for word.
  const ofOther = await stack.api.get(`/api/portal/v1/rejected-webhooks/${id}`, stack.asB());
  const missing = await stack.api.get('/api/portal/v1/rejected-webhooks/00000000-0000-4000-8000-000000000000', stack.asB());
  expect(ofOther.status).toBe(404);
  expect(ofOther.json).toEqual(missing.json);
  // An operator opens any partner's.
  const asOperator = await stack.api.get(`/api/admin/v1/rejected-webhooks/${id}`, stack.asOperator);
  expect([asOperator.status, (asOperator.json as { data: { partner_id: string } }).data.partner_id]).toEqual([200, stack.partnerA]);
});

test("another partner's key or token finds none of a partner's deliveries or webhooks, on every route of the spec", async () => {
  const deliveries = (await stack.api.get('/api/portal/v1/deliveries', stack.asA())).json as { data: Array<{ delivery_id: string }> };
  const webhooks = await waitFor(
    async () => {
      const page = (await stack.api.get('/api/portal/v1/webhooks', stack.asA())).json as {
        data: Array<{ webhook_id: string; transaction_number: string }>;
      };
      return page.data.length === 1 ? page : undefined;
    },
    "partner A's webhook in the portal",
    30_000,
  );
  expect(webhooks.data[0]!.transaction_number).toBe('TRX-A-1');
  const rejected = await waitFor(
    async () =>
      ((await stack.api.get('/api/portal/v1/rejected-webhooks', stack.asA())).json as { data: Array<{ rejection_id: string }> }).data[0],
    "partner A's refused webhook in the portal",
    30_000,
  );
  // An endpoint of A's that B has none of by that id (both have a "main"); disabled, it changes none of A's callbacks.
  const added = await stack.api.post('/api/portal/v1/endpoints', stack.asA(), { url: 'http://127.0.0.1:9/walked', disabled: true });
  expect(added.status).toBe(201);
  const ids: Record<string, string> = {
    deliveryId: deliveries.data[0]!.delivery_id,
    webhookId: webhooks.data[0]!.webhook_id,
    rejectionId: rejected.rejection_id,
    endpointId: (added.json as { data: { endpoint_id: string } }).data.endpoint_id,
  };
  const { token: tokenB } = await stack.portalToken(stack.partnerB);
  const operations = Object.entries(stack.api.openapi.paths)
    .filter(([route]) => route.startsWith('/api/portal/v1/'))
    .flatMap(([route, methods]) => Object.keys(methods).map((method) => ({ route, method })));
  expect(operations.map((o) => `${o.method} ${o.route}`)).toEqual(
    expect.arrayContaining([
      'get /api/portal/v1/deliveries/{deliveryId}',
      'post /api/portal/v1/deliveries/{deliveryId}/resend',
      'get /api/portal/v1/rejected-webhooks',
    ]),
  );
  // A route the walk must not call, and why; every other route of the spec is called.
  const notWalked: Record<string, string> = {
    // It names no other partner's id and answers only the caller's own new key, so it has nothing of
    // A's to leak; called, it would rotate B's key. A partner rotating its own key has its own test.
    'post /api/portal/v1/api-keys/rotate': "rotates the caller's own key",
    // An endpoint id names one of the caller's own endpoints (another partner's of the same name is not
    // reachable by it); called, it would send B a test event. Its 404 for an endpoint not the caller's:
    // test/retry/send-test-event.test.ts.
    'post /api/portal/v1/endpoints/{endpointId}/test': "sends a test event to the caller's own endpoint",
    // The same for the caller's signing secret (services/delivery-log/test/self-service.int.test.ts).
    'post /api/portal/v1/signing-secret/rotate': "rotates the caller's own signing secret",
    'post /api/portal/v1/signing-secret/activate': "switches the caller's own signing secret",
  };
  expect(operations.map((o) => `${o.method} ${o.route}`)).toEqual(expect.arrayContaining(Object.keys(notWalked)));
  for (const credentials of [stack.asB(), { authorization: `Bearer ${tokenB}` } as Record<string, string>]) {
    const portalLink = 'authorization' in credentials;
    for (const { route, method } of operations.filter((o) => !(`${o.method} ${o.route}` in notWalked))) {
      const params = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const missing = params.filter((name) => ids[name] === undefined);
      // A new route with a parameter the walk has no id of A's for: give it one (or a reason in notWalked).
      if (missing.length > 0) throw new Error(`the walk has no id of partner A for {${missing.join('}, {')}} of ${method} ${route}`);
      const url = route.replace(/\{([^}]+)\}/g, (_, name: string) => ids[name]!);
      const answer = method === 'get' ? await stack.api.get(url, credentials) : await stack.api.send(method, url, credentials, {});
      // A portal link may not change an endpoint at all: refused before any id is looked at, so it tells nothing either.
      const refusedFirst = portalLink && (method === 'patch' || method === 'delete');
      if (params.length > 0) expect([method, url, answer.status]).toEqual([method, url, refusedFirst ? 403 : 404]);
      else expect(JSON.stringify(answer.json)).not.toContain(stack.partnerA);
    }
  }
  // A's own token opens what B's could not.
  const { token: tokenA } = await stack.portalToken(stack.partnerA);
  expect((await stack.api.get(`/api/portal/v1/webhooks/${ids['webhookId']}`, { authorization: `Bearer ${tokenA}` })).status).toBe(200);
});

test('no credentials, a wrong key, a forged or expired token: 401 in the error body, and nothing else said', async () => {
  const expired = await unrecorded(process.env['HOOKSTREAM_PORTAL_TOKEN_KEYS'] ?? '', new Date(Date.now() - 3600_000), stack.partnerA);
  const forged = await unrecorded(`x:${Buffer.alloc(32, 7).toString('base64')}`, new Date(), stack.partnerA);
  // Signed with the service's own key, valid for a minute, but never issued (no row): refused.
  const unissued = await unrecorded(process.env['HOOKSTREAM_PORTAL_TOKEN_KEYS'] ?? '', new Date(), stack.partnerA);
  const refused: Array<Record<string, string>> = [
    {},
    { 'x-api-key': 'hs_wrong' },
    { authorization: `Bearer ${expired}` },
    { authorization: `Bearer ${forged}` },
    { authorization: `Bearer ${unissued}` },
  ];
  for (const headers of refused) {
    const answer = await stack.api.get('/api/portal/v1/deliveries', headers);
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ status: 'failed', code: 401, error_code: 'INVALID_API_KEY_ERR' });
  }
});

test('invalid query parameters are refused with 400 naming each field', async () => {
  const answer = await stack.api.get('/api/portal/v1/deliveries?limit=0&status=lost&colour=red&cursor=zzz', stack.asA());
  expect(answer.status).toBe(400);
  const message = (answer.json as { message: string }).message;
  for (const field of ['limit', 'status', 'colour', 'cursor']) expect(message).toContain(field);
  const fields = (answer.json as { fields: Array<{ field: string }> }).fields.map((p) => p.field);
  expect(fields.sort()).toEqual(['colour', 'cursor', 'limit', 'status']);
});

test('pages follow each other by cursor, newest first, without repeating or skipping a delivery', async () => {
  await waitFor(
    async () =>
      ((await stack.api.get('/api/portal/v1/deliveries?status=delivered', stack.asB())).json as { data: unknown[] }).data.length === 5 ||
      undefined,
    "partner B's five deliveries in the portal",
    30_000,
  );
  const seen: Array<{ policy_number: string; created_at: string }> = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${cursor}` : '';
    const page = (await stack.api.get(`/api/portal/v1/deliveries?limit=2${query}`, stack.asB())).json as {
      data: Array<{ policy_number: string; created_at: string }>;
      next_cursor: string | null;
    };
    seen.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  expect(seen.map((d) => d.policy_number).sort()).toEqual(['P-B-1', 'P-B-2', 'P-B-3', 'P-B-4', 'P-B-5']);
  const times = seen.map((d) => d.created_at);
  expect([...times].sort().reverse()).toEqual(times);
});

type DeliveryPage = {
  data: Array<{ delivery_id: string; policy_number: string; policy_version: number; endpoint_id: string; created_at: string }>;
  next_cursor: string | null;
};

test('the list keeps only the deliveries of the policy_number, endpoint_id and from (inclusive) / to (exclusive) asked for', async () => {
  const all = await waitFor(
    async () => {
      const page = (await stack.api.get('/api/portal/v1/deliveries?status=delivered', stack.asB())).json as DeliveryPage;
      return page.data.length === 5 ? page.data : undefined;
    },
    "partner B's five deliveries in the portal",
    30_000,
  );
  const listed = async (query: string) =>
    ((await stack.api.get(`/api/portal/v1/deliveries?${query}`, stack.asB())).json as DeliveryPage).data.map((d) => d.policy_number).sort();
  const policies = (rows: typeof all) => rows.map((d) => d.policy_number).sort();

  expect(await listed('policy_number=P-B-3')).toEqual(['P-B-3']);
  expect(await listed('policy_number=P-A-1')).toEqual([]);
  expect(await listed('endpoint_id=main')).toEqual(policies(all));
  expect(await listed('endpoint_id=elsewhere')).toEqual([]);
  // The times the deliveries were made, oldest first (some may share one).
  const times = all.map((d) => Date.parse(d.created_at)).sort((a, b) => a - b);
  const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
  const middle = times[2]!;
  expect(await listed(`from=${iso(middle)}`)).toEqual(policies(all.filter((d) => Date.parse(d.created_at) >= middle)));
  expect(await listed(`to=${iso(middle)}`)).toEqual(policies(all.filter((d) => Date.parse(d.created_at) < middle)));
  expect(await listed(`from=${iso(times[0]!)}&to=${iso(times.at(-1)! + 1)}`)).toEqual(policies(all));
  expect(await listed(`from=${iso(times.at(-1)! + 1)}`)).toEqual([]);
  expect(await listed(`to=${iso(times[0]!)}`)).toEqual([]);
});
