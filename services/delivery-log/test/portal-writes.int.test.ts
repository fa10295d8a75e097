/**
 * The partner API's writes beyond a resend (support/portal-stack.ts): resends past the hourly
 * limit are refused, concurrent ones too, and a superseded one is not resent and costs no place; a
 * partner rotates its own key and both keys work through the overlap.
 */
import { policyEvent } from '../../../test/helpers/outbound';
import { waitFor } from '../../../test/helpers/infrastructure';
import { PortalStack } from './support/portal-stack';

/** DELIVERY_LOG_RESENDS_PER_HOUR of the service under test. */
const RESENDS_PER_HOUR = 2;
let stack: PortalStack;

beforeAll(async () => {
  stack = await PortalStack.open('portal-writes', RESENDS_PER_HOUR);
  // The whole pipeline and a delivery log on a fresh database: a minute or more beside other suites.
}, 180_000);

afterAll(() => stack?.close());

type DeliveryPage = {
  data: Array<{ delivery_id: string; policy_number: string; policy_version: number; endpoint_id: string; created_at: string }>;
  next_cursor: string | null;
};

test('resends past the hourly limit answer 429 with Retry-After, concurrent ones too; a superseded one answers 409 and costs none', async () => {
  const dead = await waitFor(
    async () => {
      const page = (await stack.api.get('/api/portal/v1/deliveries?status=dead_lettered', stack.asC())).json as DeliveryPage;
      return page.data.length === 4 ? page.data : undefined;
    },
    "partner C's four dead-lettered deliveries in the portal",
    60_000,
  );
  const resend = (policy: string) =>
    stack.api.post(`/api/portal/v1/deliveries/${dead.find((d) => d.policy_number === policy)!.delivery_id}/resend`, stack.asC(), {});

  // A newer status of P-C-1 since its delivery was dead-lettered: resending the older would undo it.
  await stack.fixture.events.publish([policyEvent(stack.partnerC, { version: 2 }, { policy_number: 'P-C-1' })]);
  await waitFor(
    async () => {
      const page = (await stack.api.get('/api/portal/v1/deliveries?policy_number=P-C-1', stack.asC())).json as DeliveryPage;
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
  const rotated = await stack.api.post('/api/portal/v1/api-keys/rotate', stack.asB(), { reason: 'yearly rotation' });
  const after = Date.now();
  expect(rotated.status).toBe(201);
  const key = (
    rotated.json as {
      data: { partner_id: string; key_id: string; api_key: string; retiring: Array<{ key_id: string; expires_at: string }> };
    }
  ).data;
  // The new key, shown in this answer only (the log keeps no key to show again).
  expect(key.partner_id).toBe(stack.partnerB);
  expect(key.api_key).not.toBe(stack.keyB);
  // Its one other key retires at the end of the overlap: 24 hours (DELIVERY_LOG_KEY_ROTATION_OVERLAP_HOURS' default) from now.
  expect(key.retiring).toHaveLength(1);
  expect(key.retiring[0]!.key_id).not.toBe(key.key_id);
  const ends = Date.parse(key.retiring[0]!.expires_at);
  expect(ends).toBeGreaterThanOrEqual(before + 24 * 3600_000);
  expect(ends).toBeLessThanOrEqual(after + 24 * 3600_000);

  const withNew = { 'x-api-key': key.api_key };
  await waitFor(
    async () => (await stack.api.get('/api/portal/v1/endpoints', withNew)).status === 200 || undefined,
    'the new key opening the partner API',
    30_000,
  );
  expect((await stack.api.get('/api/portal/v1/endpoints', stack.asB())).status).toBe(200);
  // Both are the same partner's keys: they see the same deliveries.
  const mine = async (headers: Record<string, string>) =>
    ((await stack.api.get('/api/portal/v1/deliveries?policy_number=P-B-1', headers)).json as DeliveryPage).data;
  const seenWithNew = await mine(withNew);
  expect(seenWithNew).toHaveLength(1);
  expect(seenWithNew).toEqual(await mine(stack.asB()));
});
