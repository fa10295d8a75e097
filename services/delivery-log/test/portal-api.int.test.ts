/**
 * The partner API on the embedded store (PGlite in the service process), fed by the real pipeline:
 * a partner sees its dead-lettered callback with every attempt in order, the body exactly as it
 * received it and the headers of each send (secrets redacted), recomputes from the answer's
 * verification the signature it received, resends it and sees it delivered, and sees why its refused webhook was refused;
 * another partner's credentials find none of it on any route of the served spec; every answer fits
 * that spec; bad input is refused naming the field; each filter of the list filters; resends past
 * the hourly limit are refused, concurrent ones too, and a superseded one is not resent; a partner
 * rotates its own key and both keys work through the overlap.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseKeyring } from '@hookstream/shared';
import { PortalTokens } from '../src/api/portal-tokens';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import {
  DELIVERY_LOG_ENTRY,
  RECEIVER_DEFAULT_BODY,
  policyEvent,
  startService,
  type Receiver,
  type RunningService,
} from '../../../test/helpers/outbound';
import { postWebhook, webhook } from '../../../test/helpers/ingress';
import { waitFor } from '../../../test/helpers/infrastructure';
import { ApiClient } from './support/api-client';

let fixture: OutboundFixture;
let api: ApiClient;
let dataDir: string;
const partnerA = uniquePartnerId('portal-a');
const partnerB = uniquePartnerId('portal-b');
/** Partner C's endpoint always fails: its four deliveries are dead-lettered, to resend. */
const partnerC = uniquePartnerId('portal-c');
let keyA: string;
let keyB: string;
let keyC: string;
let failing: Receiver;
let log: RunningService;

const asA = () => ({ 'x-api-key': keyA });
const asB = () => ({ 'x-api-key': keyB });
const asC = () => ({ 'x-api-key': keyC });
/** DELIVERY_LOG_RESENDS_PER_HOUR of the service under test. */
const RESENDS_PER_HOUR = 2;
/** Partner A signs its callbacks with HMAC_SHA256 (default header names): the answer lets it recompute each signature. */
const A_API_KEY = 'a-outbound-key-5e1';
const A_SECRET = 'a-hmac-secret-77c';
/** What partner A's endpoint answers while it fails. */
const FAILURE_ANSWER = '{"error":"policy service unavailable"}';
const tokens = () => new PortalTokens(parseKeyring(process.env['HOOKSTREAM_PORTAL_TOKEN_KEYS'] ?? '', 'HOOKSTREAM_PORTAL_TOKEN_KEYS', 32));

beforeAll(async () => {
  fixture = await OutboundFixture.open('portal-api', { retryDelaysMs: retryTierDelays(50), breaker: { failures: 1000, openMs: 100 } });
  // Partner A's endpoint fails the first send and its eight retries, then answers 200 (to the resend).
  failing = await fixture.receiver((_request, index) => (index < 9 ? { status: 500, body: FAILURE_ANSWER } : 200));
  const answering = await fixture.receiver(() => 200);
  keyA = await fixture.partners.create(partnerA, {
    callback_endpoints: [{ endpoint_id: 'main', url: failing.url }],
    outbound_auth: { method: 'HMAC_SHA256', api_key: A_API_KEY, secret: A_SECRET },
  });
  keyB = await fixture.partners.create(partnerB, {
    callback_endpoints: [{ endpoint_id: 'main', url: answering.url }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  keyC = await fixture.partners.create(partnerC, {
    callback_endpoints: [{ endpoint_id: 'main', url: (await fixture.receiver(() => 500)).url }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-delivery-log-'));
  const [ingress, started] = await Promise.all([
    fixture.startIngress(),
    startService(DELIVERY_LOG_ENTRY, fixture.prefix, {
      ...fixture.env,
      DELIVERY_LOG_DATA_DIR: dataDir,
      HTTP_PORT: '0',
      DELIVERY_LOG_RESENDS_PER_HOUR: String(RESENDS_PER_HOUR),
    }),
    fixture.startConsumer(),
    fixture.startSender(),
  ]);
  log = started;
  await fixture.events.publish([
    policyEvent(partnerA, {}, { policy_number: 'P-A-1' }),
    ...[1, 2, 3, 4, 5].map((n) => policyEvent(partnerB, {}, { policy_number: `P-B-${n}` })),
    ...[1, 2, 3, 4].map((n) => policyEvent(partnerC, {}, { policy_number: `P-C-${n}` })),
  ]);
  const accepted = webhook({ transaction_number: 'TRX-A-1' });
  expect((await postWebhook(ingress.webhookUrl, keyA, accepted)).status).toBe(200);
  // Sent again with its request_id and body, as a retrying partner would: a replay.
  expect((await postWebhook(ingress.webhookUrl, keyA, accepted)).status).toBe(200);
  // One refused webhook each: A's without a transaction_number, B's without documents.
  expect((await postWebhook(ingress.webhookUrl, keyA, webhook({ request_id: 'REJ-A-1', transaction_number: undefined }))).status).toBe(400);
  expect((await postWebhook(ingress.webhookUrl, keyB, webhook({ request_id: 'REJ-B-1', documents: [] }))).status).toBe(400);
  api = await ApiClient.open(log.url);
});

type Verification = { method: string; steps: string[]; signed_string: string | null; signature_header: string | null };

/** The signature a partner computes from the answer's verification: HMAC-SHA256 of the signed string, «api_key» filled in, keyed with its secret. */
const recomputed = (verification: Verification) =>
  createHmac('sha256', A_SECRET).update(verification.signed_string!.replace('«api_key»', A_API_KEY), 'utf8').digest('base64');

afterAll(async () => {
  await log?.stop();
  await fixture?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('a callback failing until dead-lettered shows every attempt in order, and the body the partner received', async () => {
  const list = await waitFor(
    async () => {
      const answer = await api.get('/api/portal/v1/deliveries?status=dead_lettered', asA());
      const page = answer.json as { data: Array<{ delivery_id: string; policy_number: string }> };
      return page.data.length === 1 ? page : undefined;
    },
    'the dead-lettered delivery in the portal',
    60_000,
  );
  expect(list.data[0]!.policy_number).toBe('P-A-1');
  const detail = await api.get(`/api/portal/v1/deliveries/${list.data[0]!.delivery_id}`, asA());
  const delivery = (detail.json as { data: Record<string, unknown> & { attempts: Array<Record<string, unknown>> } }).data;
  // Nine sends, each from its tier and with the partner's answer, then the dead-lettering after the last.
  expect(delivery.attempts.map((a) => [a['outcome'], a['attempt'], a['tier'], a['http_status'], a['response_excerpt']])).toEqual([
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ['FAILED_ATTEMPT', n, n - 1, 500, FAILURE_ANSWER]),
    ['DEAD_LETTERED', 9, 8, 500, null],
  ]);
  expect(delivery).toMatchObject({ state: 'dead_lettered', attempt_count: 9, last_http_status: 500 });
  expect(delivery['body']).toBe(failing.requests[0]!.raw.toString('utf8'));

  // Each send's headers as received, the API key's and the signature's values redacted; none on the dead-lettering.
  expect(failing.requests).toHaveLength(9);
  const recorded = delivery.attempts.map((a) => a['request_headers'] as Record<string, string> | null);
  expect(recorded.at(-1)).toBeNull();
  recorded.slice(0, 9).forEach((headers, i) => {
    const received = failing.requests[i]!.headers;
    expect(headers).toEqual({
      'content-type': 'application/json',
      'X-API-Key': '[redacted]',
      'X-Timestamp': received['x-timestamp'],
      'X-Signature': '[redacted]',
      'x-hookstream-delivery-id': received['x-hookstream-delivery-id'],
      'x-hookstream-event-id': received['x-hookstream-event-id'],
      'x-hookstream-attempt': String(i + 1),
    });
  });
  // The verification rebuilds the string the latest send was signed over: the partner recomputes the signature it received.
  const verification = delivery['verification'] as Verification;
  expect(verification).toMatchObject({ method: 'HMAC_SHA256', signature_header: 'X-Signature' });
  expect(verification.steps.length).toBeGreaterThan(0);
  expect(recomputed(verification)).toBe(failing.requests[8]!.headers['x-signature']);
  // Never a secret, the API key or a signature in the answer.
  const answer = JSON.stringify(detail.json);
  for (const secret of [A_SECRET, A_API_KEY, ...failing.requests.map((r) => String(r.headers['x-signature']))]) {
    expect(answer).not.toContain(secret);
  }
});

test('the partner resends its dead-lettered callback: the same delivery, delivered at the first attempt after the nine failed', async () => {
  const [dead] = ((await api.get('/api/portal/v1/deliveries?status=dead_lettered', asA())).json as { data: Array<{ delivery_id: string }> })
    .data;
  const id = dead!.delivery_id;
  const resent = await api.post(`/api/portal/v1/deliveries/${id}/resend`, asA(), { reason: 'endpoint fixed (ticket 42)' });
  expect(resent.status).toBe(202);
  expect(resent.json).toMatchObject({ data: { delivery_id: id, replay_count: 1 } });
  const delivered = await waitFor(
    async () => {
      const answer = (await api.get(`/api/portal/v1/deliveries/${id}`, asA())).json as {
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
    expect.objectContaining({ operator: `partner:${partnerA}`, reason: 'endpoint fixed (ticket 42)', outcome: 'replayed' }),
  ]);
  expect(failing.requests).toHaveLength(10);
  expect(failing.requests[9]!.raw.equals(failing.requests[0]!.raw)).toBe(true);
  // The verification follows the latest send: the resend's.
  expect(recomputed(delivered['verification'] as Verification)).toBe(failing.requests[9]!.headers['x-signature']);

  // Delivered now: nothing to resend, and it says why.
  const again = await api.post(`/api/portal/v1/deliveries/${id}/resend`, asA(), {});
  expect(again.status).toBe(409);
  expect((again.json as { message: string }).message).toContain('delivered');
});

test('a partner sees its webhook accepted once and how often it sent it again (replayed)', async () => {
  type Summary = { webhook_id: string; transaction_number: string; replay_count: number; last_replayed_at: string | null };
  const replayed = await waitFor(
    async () => {
      const page = (await api.get('/api/portal/v1/webhooks?transaction_number=TRX-A-1', asA())).json as { data: Summary[] };
      return page.data[0]?.replay_count === 1 ? page.data : undefined;
    },
    "partner A's webhook shown replayed once",
    30_000,
  );
  expect(replayed).toHaveLength(1);
  const detail = (await api.get(`/api/portal/v1/webhooks/${replayed[0]!.webhook_id}`, asA())).json as {
    data: Summary & { replays: Array<{ received_at: string }> };
  };
  expect(detail.data.replays.map((r) => r.received_at)).toEqual([replayed[0]!.last_replayed_at]);
});

test('a partner sees why its webhook was refused, and only its own refusals', async () => {
  type Page = { data: Array<Record<string, unknown>>; next_cursor: string | null };
  const ofA = await waitFor(
    async () => {
      const page = (await api.get('/api/portal/v1/rejected-webhooks', asA())).json as Page;
      return page.data.length > 0 ? page : undefined;
    },
    "partner A's refused webhook in the portal",
    30_000,
  );
  expect(ofA.data).toEqual([
    expect.objectContaining({
      partner_id: partnerA,
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
      const page = (await api.get('/api/portal/v1/rejected-webhooks?request_id=REJ-B-1', asB())).json as Page;
      return page.data.length > 0 ? page : undefined;
    },
    "partner B's refused webhook in the portal",
    30_000,
  );
  expect(ofB.data.map((r) => [r['partner_id'], r['request_id'], r['fields']])).toEqual([[partnerB, 'REJ-B-1', ['documents']]]);
  // A's request_id asked for by B: nothing.
  expect(((await api.get('/api/portal/v1/rejected-webhooks?request_id=REJ-A-1', asB())).json as Page).data).toEqual([]);
});

test("another partner's key or token finds none of a partner's deliveries or webhooks, on every route of the spec", async () => {
  const deliveries = (await api.get('/api/portal/v1/deliveries', asA())).json as { data: Array<{ delivery_id: string }> };
  const webhooks = await waitFor(
    async () => {
      const page = (await api.get('/api/portal/v1/webhooks', asA())).json as {
        data: Array<{ webhook_id: string; transaction_number: string }>;
      };
      return page.data.length === 1 ? page : undefined;
    },
    "partner A's webhook in the portal",
    30_000,
  );
  expect(webhooks.data[0]!.transaction_number).toBe('TRX-A-1');
  const ids: Record<string, string> = { deliveryId: deliveries.data[0]!.delivery_id, webhookId: webhooks.data[0]!.webhook_id };
  const { token: tokenB } = await tokens().issue(partnerB, 300);
  const operations = Object.entries(api.openapi.paths)
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
  };
  expect(operations.map((o) => `${o.method} ${o.route}`)).toEqual(expect.arrayContaining(Object.keys(notWalked)));
  for (const credentials of [asB(), { authorization: `Bearer ${tokenB}` }]) {
    for (const { route, method } of operations.filter((o) => !(`${o.method} ${o.route}` in notWalked))) {
      const params = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const missing = params.filter((name) => ids[name] === undefined);
      // A new route with a parameter the walk has no id of A's for: give it one (or a reason in notWalked).
      if (missing.length > 0) throw new Error(`the walk has no id of partner A for {${missing.join('}, {')}} of ${method} ${route}`);
      const url = route.replace(/\{([^}]+)\}/g, (_, name: string) => ids[name]!);
      const answer = method === 'post' ? await api.post(url, credentials, {}) : await api.get(url, credentials);
      if (params.length > 0) expect([method, url, answer.status]).toEqual([method, url, 404]);
      else expect(JSON.stringify(answer.json)).not.toContain(partnerA);
    }
  }
  // A's own token opens what B's could not.
  const { token: tokenA } = await tokens().issue(partnerA, 300);
  expect((await api.get(`/api/portal/v1/webhooks/${ids['webhookId']}`, { authorization: `Bearer ${tokenA}` })).status).toBe(200);
});

test('no credentials, a wrong key, a forged or expired token: 401 in the error body, and nothing else said', async () => {
  const expired = await tokens().issue(partnerA, 60, new Date(Date.now() - 3600_000));
  const forged = await new PortalTokens(parseKeyring(`x:${Buffer.alloc(32, 7).toString('base64')}`, 'k', 32)).issue(partnerA, 300);
  const refused: Array<Record<string, string>> = [
    {},
    { 'x-api-key': 'hs_wrong' },
    { authorization: `Bearer ${expired.token}` },
    { authorization: `Bearer ${forged.token}` },
  ];
  for (const headers of refused) {
    const answer = await api.get('/api/portal/v1/deliveries', headers);
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ status: 'failed', code: 401, error_code: 'INVALID_API_KEY_ERR' });
  }
});

test('invalid query parameters are refused with 400 naming each field', async () => {
  const answer = await api.get('/api/portal/v1/deliveries?limit=0&status=lost&colour=red&cursor=zzz', asA());
  expect(answer.status).toBe(400);
  const message = (answer.json as { message: string }).message;
  for (const field of ['limit', 'status', 'colour', 'cursor']) expect(message).toContain(field);
  const fields = (answer.json as { fields: Array<{ field: string }> }).fields.map((p) => p.field);
  expect(fields.sort()).toEqual(['colour', 'cursor', 'limit', 'status']);
});

test('pages follow each other by cursor, newest first, without repeating or skipping a delivery', async () => {
  await waitFor(
    async () =>
      ((await api.get('/api/portal/v1/deliveries?status=delivered', asB())).json as { data: unknown[] }).data.length === 5 || undefined,
    "partner B's five deliveries in the portal",
    30_000,
  );
  const seen: Array<{ policy_number: string; created_at: string }> = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${cursor}` : '';
    const page = (await api.get(`/api/portal/v1/deliveries?limit=2${query}`, asB())).json as {
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
      const page = (await api.get('/api/portal/v1/deliveries?status=delivered', asB())).json as DeliveryPage;
      return page.data.length === 5 ? page.data : undefined;
    },
    "partner B's five deliveries in the portal",
    30_000,
  );
  const listed = async (query: string) =>
    ((await api.get(`/api/portal/v1/deliveries?${query}`, asB())).json as DeliveryPage).data.map((d) => d.policy_number).sort();
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

test('resends past the hourly limit answer 429 with Retry-After, concurrent ones too; a superseded one answers 409 and costs none', async () => {
  const dead = await waitFor(
    async () => {
      const page = (await api.get('/api/portal/v1/deliveries?status=dead_lettered', asC())).json as DeliveryPage;
      return page.data.length === 4 ? page.data : undefined;
    },
    "partner C's four dead-lettered deliveries in the portal",
    60_000,
  );
  const resend = (policy: string) =>
    api.post(`/api/portal/v1/deliveries/${dead.find((d) => d.policy_number === policy)!.delivery_id}/resend`, asC(), {});

  // A newer status of P-C-1 since its delivery was dead-lettered: resending the older would undo it.
  await fixture.events.publish([policyEvent(partnerC, { version: 2 }, { policy_number: 'P-C-1' })]);
  await waitFor(
    async () => {
      const page = (await api.get('/api/portal/v1/deliveries?policy_number=P-C-1', asC())).json as DeliveryPage;
      return page.data.some((d) => d.policy_version === 2) || undefined;
    },
    'the newer status of P-C-1 made a delivery',
    30_000,
  );
  const superseded = await resend('P-C-1');
  expect(superseded.status).toBe(409);
  expect((superseded.json as { message: string }).message).toMatch(/^superseded: a newer version \(2\) of policy P-C-1/);

  // Three at once, with room for two (the superseded one gave its place back): two go, one is refused.
  const tries = await Promise.all(['P-C-2', 'P-C-3', 'P-C-4'].map(resend));
  expect(tries.map((t) => t.status).sort()).toEqual([202, 202, 429]);
  const refused = tries.find((t) => t.status === 429)!;
  expect(refused.json).toMatchObject({ code: 429, error_code: 'TOO_MANY_REQUESTS_ERR' });
  // A place frees when the oldest resend of the hour is an hour old.
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
  expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);

  // The next one, alone: refused as well.
  const policy = ['P-C-2', 'P-C-3', 'P-C-4'][tries.indexOf(refused)]!;
  const next = await resend(policy);
  expect(next.status).toBe(429);
  expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(3500);
}, 120_000);

test('a partner rotates its own key: the new key is in the answer, and the old and new keys both work until the overlap it states ends', async () => {
  const before = Date.now();
  const rotated = await api.post('/api/portal/v1/api-keys/rotate', asB(), { reason: 'yearly rotation' });
  const after = Date.now();
  expect(rotated.status).toBe(201);
  const key = (
    rotated.json as {
      data: { partner_id: string; key_id: string; api_key: string; retiring: Array<{ key_id: string; expires_at: string }> };
    }
  ).data;
  // The new key, shown in this answer only (the log keeps no key to show again).
  expect(key.partner_id).toBe(partnerB);
  expect(key.api_key).not.toBe(keyB);
  // Its one other key retires at the end of the overlap: 24 hours (DELIVERY_LOG_KEY_ROTATION_OVERLAP_HOURS' default) from now.
  expect(key.retiring).toHaveLength(1);
  expect(key.retiring[0]!.key_id).not.toBe(key.key_id);
  const ends = Date.parse(key.retiring[0]!.expires_at);
  expect(ends).toBeGreaterThanOrEqual(before + 24 * 3600_000);
  expect(ends).toBeLessThanOrEqual(after + 24 * 3600_000);

  const withNew = { 'x-api-key': key.api_key };
  await waitFor(
    async () => (await api.get('/api/portal/v1/endpoints', withNew)).status === 200 || undefined,
    'the new key opening the partner API',
    30_000,
  );
  expect((await api.get('/api/portal/v1/endpoints', asB())).status).toBe(200);
  // Both are the same partner's keys: they see the same deliveries.
  const mine = async (headers: Record<string, string>) =>
    ((await api.get('/api/portal/v1/deliveries?policy_number=P-B-1', headers)).json as DeliveryPage).data;
  const seenWithNew = await mine(withNew);
  expect(seenWithNew).toHaveLength(1);
  expect(seenWithNew).toEqual(await mine(asB()));
});
