/**
 * What an operator sees across partners and what a partner recovers (support/portal-stack.ts, every
 * answer checked against the served OpenAPI): the failing endpoints (C's, answering 500, first;
 * B's, answering 200, not at all); partners found by part of their id or name; policy and
 * transaction numbers by a case-insensitive prefix, a partner only ever finding its own; a partner's
 * recovery since a time, its dry run first, under the hourly limit of resends, refusing a superseded
 * delivery, never counting or resending another partner's, and audited under the actor shown; an
 * operator's replay of dead letters chosen one by one.
 */
import { policyEvent } from '../../../test/helpers/outbound';
import { waitFor } from '../../../test/helpers/infrastructure';
import { PortalStack } from './support/portal-stack';

/** DELIVERY_LOG_RESENDS_PER_HOUR of the service under test. */
const RESENDS_PER_HOUR = 2;
let stack: PortalStack;

beforeAll(async () => {
  stack = await PortalStack.open('operator-views', RESENDS_PER_HOUR);
}, 180_000);

afterAll(() => stack?.close());

interface Delivery {
  delivery_id: string;
  policy_number: string;
  policy_version: number;
  state: string;
  replay_count: number;
}
interface Recovery {
  dry_run: boolean;
  until: string;
  selected: number;
  more: boolean;
  resends_left_this_hour: number;
  resent: Array<{ delivery_id: string; policy_number: string; replay_id: string | null }>;
  not_resent: Array<{ delivery_id: string; policy_number: string; reason: string; retry_after_seconds?: number }>;
}

const deliveries = async (path: string, headers: Record<string, string>) => {
  const answer = await stack.api.get(path, headers);
  expect(answer.status).toBe(200);
  return (answer.json as { data: Delivery[] }).data;
};

/** Partner C's dead-lettered deliveries, once there are `count`. */
const deadLetteredOfC = (count: number) =>
  waitFor(
    async () => {
      const page = await deliveries('/api/portal/v1/deliveries?status=dead_lettered', stack.asC());
      return page.length === count ? page : undefined;
    },
    `partner C's ${count} dead-lettered deliveries`,
    90_000,
  );

test("the failing endpoints across partners: C's endpoint answering 500 first, with its dead letters waiting; B's not at all", async () => {
  await deadLetteredOfC(4);
  const answer = await stack.api.get('/api/admin/v1/failing-endpoints', stack.asOperator);
  expect(answer.status).toBe(200);
  const page = answer.json as {
    data: Array<Record<string, unknown>>;
    total: number;
    next_offset: number | null;
  };
  const partners = page.data.map((e) => e['partner_id']);
  expect(partners).toContain(stack.partnerC);
  expect(partners).not.toContain(stack.partnerB);
  const c = page.data.find((e) => e['partner_id'] === stack.partnerC)!;
  expect(c).toMatchObject({
    endpoint_id: 'main',
    last_http_status: 500,
    last_error_class: 'HTTP_STATUS',
    dead_letters_waiting: 4,
    success_rate_last_hour: 0,
  });
  expect(c['failed_last_hour']).toBeGreaterThanOrEqual(4);
  // Sorted by dead letters waiting: C's four before A's one at most.
  const a = page.data.find((e) => e['partner_id'] === stack.partnerA);
  if (a) expect(partners.indexOf(stack.partnerC)).toBeLessThan(partners.indexOf(stack.partnerA));

  const paged = (await stack.api.get(`/api/admin/v1/failing-endpoints?limit=1`, stack.asOperator)).json as typeof page;
  expect(paged.data).toHaveLength(1);
  expect(paged.data[0]!['partner_id']).toBe(stack.partnerC);
  expect(paged.next_offset).toBe(page.total > 1 ? 1 : null);
  const onlyB = (await stack.api.get(`/api/admin/v1/failing-endpoints?partner_id=${stack.partnerB}`, stack.asOperator)).json as typeof page;
  expect(onlyB).toEqual({ data: [], total: 0, next_offset: null });
  expect((await stack.api.get('/api/admin/v1/failing-endpoints?limit=0', stack.asOperator)).status).toBe(400);
  // A partner has no such route.
  expect((await stack.api.get('/api/admin/v1/failing-endpoints', stack.asC())).status).toBe(401);
});

test('partners by part of their id, whatever its case; policy and transaction numbers by a prefix, whatever its case', async () => {
  const middle = stack.partnerC.slice(2, 12).toUpperCase();
  const found = (await stack.api.get(`/api/admin/v1/partners?search=${encodeURIComponent(middle)}`, stack.asOperator)).json as {
    data: Array<{ partner_id: string }>;
  };
  expect(found.data.map((p) => p.partner_id)).toEqual([stack.partnerC]);
  expect((await stack.api.get('/api/admin/v1/partners?search=', stack.asOperator)).status).toBe(400);
  expect((await stack.api.get(`/api/admin/v1/partners?search=${'x'.repeat(101)}`, stack.asOperator)).status).toBe(400);

  await deadLetteredOfC(4);
  expect((await deliveries('/api/portal/v1/deliveries?policy_number=p-c-', stack.asC())).map((d) => d.policy_number).sort()).toEqual([
    'P-C-1',
    'P-C-2',
    'P-C-3',
    'P-C-4',
  ]);
  // An exact number finds itself (and only what starts with it); a % is taken literally.
  expect((await deliveries('/api/portal/v1/deliveries?policy_number=P-C-2', stack.asC())).map((d) => d.policy_number)).toEqual(['P-C-2']);
  expect(await deliveries('/api/portal/v1/deliveries?policy_number=P-%25', stack.asC())).toEqual([]);
  // Another partner's numbers are not found by a partner, with any prefix.
  expect(await deliveries('/api/portal/v1/deliveries?policy_number=p-c', stack.asA())).toEqual([]);
  const acrossPartners = await deliveries('/api/admin/v1/deliveries?policy_number=p-b-', stack.asOperator);
  expect(new Set(acrossPartners.map((d) => d.policy_number))).toEqual(new Set(['P-B-1', 'P-B-2', 'P-B-3', 'P-B-4', 'P-B-5']));
  // Paged by time and id as before: two pages of three and two.
  const first = (await stack.api.get('/api/admin/v1/deliveries?policy_number=p-b-&limit=3', stack.asOperator)).json as {
    data: Delivery[];
    next_cursor: string;
  };
  const second = (await stack.api.get(`/api/admin/v1/deliveries?policy_number=p-b-&limit=3&cursor=${first.next_cursor}`, stack.asOperator))
    .json as { data: Delivery[]; next_cursor: string | null };
  expect([...first.data, ...second.data].map((d) => d.policy_number).sort()).toEqual(['P-B-1', 'P-B-2', 'P-B-3', 'P-B-4', 'P-B-5']);
  expect(second.next_cursor).toBeNull();
  expect((await stack.api.get(`/api/portal/v1/deliveries?policy_number=${'P'.repeat(101)}`, stack.asC())).status).toBe(400);

  const webhooks = await waitFor(
    async () => {
      const answer = await stack.api.get('/api/admin/v1/webhooks?transaction_number=trx-a', stack.asOperator);
      const data = (answer.json as { data: Array<{ transaction_number: string; partner_id: string }> }).data;
      return data.length > 0 ? data : undefined;
    },
    "A's webhook found by a lower-case prefix",
    30_000,
  );
  expect(webhooks.map((w) => [w.partner_id, w.transaction_number])).toEqual([[stack.partnerA, 'TRX-A-1']]);
  const ofB = (await stack.api.get('/api/portal/v1/webhooks?transaction_number=trx-a', stack.asB())).json as { data: unknown[] };
  expect(ofB.data).toEqual([]);
});

test('a partner recovers its dead letters since a time: a dry run first, then resent under the hourly limit, never another partner’s', async () => {
  const since = new Date(Date.now() - 3600_000).toISOString();
  await deadLetteredOfC(4);
  // A newer status of P-C-1: its first delivery is superseded (and the newer one is dead-lettered in its turn).
  await stack.fixture.events.publish([policyEvent(stack.partnerC, { version: 2 }, { policy_number: 'P-C-1' })]);
  await deadLetteredOfC(5);
  const recover = async (headers: Record<string, string>, body: Record<string, unknown>) => {
    const answer = await stack.api.post('/api/portal/v1/dead-letters/recover', headers, body);
    expect([answer.status, answer.json]).toEqual([200, expect.anything()]);
    return (answer.json as { data: Recovery }).data;
  };

  const dryRun = await recover(stack.asC(), { since });
  expect(dryRun).toMatchObject({ dry_run: true, selected: 5, more: false, resends_left_this_hour: RESENDS_PER_HOUR });
  expect(dryRun.resent).toHaveLength(RESENDS_PER_HOUR);
  expect(dryRun.resent.every((r) => r.replay_id === null)).toBe(true);
  expect(dryRun.not_resent.map((n) => n.reason).sort()).toEqual(['hourly_limit', 'hourly_limit', 'superseded']);
  expect(dryRun.not_resent.find((n) => n.reason === 'superseded')!.policy_number).toBe('P-C-1');
  // The dry run wrote nothing: all five are still dead-lettered, the hour's places all left.
  expect(await deliveries('/api/portal/v1/deliveries?status=dead_lettered', stack.asC())).toHaveLength(5);

  // Since a time after every one of them: nothing to recover.
  expect(await recover(stack.asC(), { since: new Date().toISOString() })).toMatchObject({ selected: 0, resent: [], not_resent: [] });
  // Another partner (A) sees only its own: its one delivery, never C's, even by C's endpoint id (both are "main").
  const ofA = await recover(stack.asA(), { since, endpoint_id: 'main' });
  expect(ofA.selected).toBeLessThanOrEqual(1);
  expect([...ofA.resent, ...ofA.not_resent].every((r) => r.policy_number === 'P-A-1')).toBe(true);
  expect((await stack.api.post('/api/portal/v1/dead-letters/recover', stack.asC(), { since, endpoint_id: 'nope' })).status).toBe(404);
  expect((await stack.api.post('/api/portal/v1/dead-letters/recover', stack.asC(), { since: 'yesterday' })).status).toBe(400);
  expect((await stack.api.post('/api/portal/v1/dead-letters/recover', stack.asC(), {})).status).toBe(400);

  // The real run is bounded by the dry run's end (`until`): nothing dead-lettered before `since` … and before an `until` equal to it.
  expect(Date.parse(dryRun.until)).toBeGreaterThan(Date.parse(since));
  expect(await recover(stack.asC(), { since, until: since, dry_run: false })).toMatchObject({ selected: 0, resent: [] });
  const done = await recover(stack.asC(), { since, until: dryRun.until, dry_run: false, reason: 'endpoint fixed (ticket 7)' });
  expect(done.dry_run).toBe(false);
  expect(done.resent.map((r) => r.delivery_id).sort()).toEqual(dryRun.resent.map((r) => r.delivery_id).sort());
  expect(done.resent.every((r) => typeof r.replay_id === 'string')).toBe(true);
  const limited = done.not_resent.filter((n) => n.reason === 'hourly_limit');
  expect(limited).toHaveLength(2);
  expect(limited[0]!.retry_after_seconds).toBeGreaterThan(3500);
  // Each counted against the hour: a single resend now is refused.
  const single = await stack.api.post(`/api/portal/v1/deliveries/${limited[0]!.delivery_id}/resend`, stack.asC(), {});
  expect(single.status).toBe(429);
  // The resent ones were re-queued (the endpoint still fails, so they are dead-lettered again later); the others were not.
  await waitFor(
    async () => {
      const all = await deliveries('/api/portal/v1/deliveries?policy_number=p-c', stack.asC());
      const resent = all.filter((d) => done.resent.some((r) => r.delivery_id === d.delivery_id));
      return resent.every((d) => d.replay_count === 1) || undefined;
    },
    'the recovered deliveries resent once',
    60_000,
  );
  const untouched = await deliveries('/api/portal/v1/deliveries?policy_number=p-c', stack.asC());
  expect(untouched.filter((d) => done.not_resent.some((n) => n.delivery_id === d.delivery_id)).map((d) => d.replay_count)).toEqual([
    0, 0, 0,
  ]);
  // Audited under the partner as the trail shows it, found by that name and by its id.
  const audited = await waitFor(
    async () => {
      const answer = await stack.api.get(`/api/admin/v1/audit?actor_id=partner:${stack.partnerC}`, stack.asOperator);
      const data = (answer.json as { data: Array<{ reason: string; actor_id: string; actor_name: string }> }).data;
      return data.find((a) => a.reason === 'endpoint fixed (ticket 7)');
    },
    'the recovery in the audit trail',
    30_000,
  );
  expect(audited).toMatchObject({ actor_id: stack.partnerC, actor_name: `partner:${stack.partnerC}` });
  const byId = (await stack.api.get(`/api/admin/v1/audit?actor_id=${stack.partnerC}`, stack.asOperator)).json as {
    data: Array<{ reason: string }>;
  };
  expect(byId.data.map((a) => a.reason)).toContain('endpoint fixed (ticket 7)');
});

test('an operator replays dead letters chosen one by one (partition:offset), the dry run first', async () => {
  const list = (await stack.api.get(`/api/admin/v1/dead-letters?partner_id=${stack.partnerC}`, stack.asOperator)).json as {
    dead_letters: Array<{ partition: number; offset: string; delivery_id: string }>;
  };
  expect(list.dead_letters.length).toBeGreaterThan(1);
  const chosen = list.dead_letters[0]!;
  const answer = await stack.api.post('/api/admin/v1/dead-letters/replay', stack.asOperator, {
    letters: [`${chosen.partition}:${chosen.offset}`],
    dry_run: true,
  });
  expect(answer.status).toBe(200);
  const decisions = (answer.json as { decisions: Array<{ delivery_id: string; partition: number; offset: string }> }).decisions;
  expect(decisions.map((d) => `${d.partition}:${d.offset}`)).toEqual([`${chosen.partition}:${chosen.offset}`]);
  const bad = await stack.api.post('/api/admin/v1/dead-letters/replay', stack.asOperator, { letters: ['x:1'] });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.json)).toContain('letters');
});
