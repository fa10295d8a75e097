/**
 * Retry now and test events in a real Chromium against the real pipeline (Kafka, the services, the
 * delivery log on a PostgreSQL database of its own), the retry tiers slowed down (tier 1: 30 s) so a
 * failing delivery's scheduled retry is still waiting while the test retries it now:
 * - a partner sees when its failing delivery's next attempt is due and what is left of the schedule,
 *   its endpoint is fixed, it clicks Retry now and sees it delivered under the same delivery id; the
 *   retry that was waiting in its tier comes due later and sends nothing (ALREADY_DELIVERED in the
 *   log, and the endpoint got exactly one request for the delivery after the fix);
 * - it sends a test event of a chosen status to its endpoint and sees the answer at once; the test
 *   is in the log as a test, and is never retried;
 * - the figure: retry now (POST) to DELIVERED in the log, over several deliveries.
 * Screenshots of docs/console.md are taken here.
 */
import { screenshot } from '../../../test/helpers/browser';
import { waitFor } from '../../../test/helpers/infrastructure';
import { policyEvent } from '../../../test/helpers/outbound';
import { ConsoleStack } from './support/console-stack';

let stack: ConsoleStack;

/** Tier 1 long enough to retry now before it is due, the others longer still (no retry of ours meets one). */
const DELAYS = [30_000, ...Array<number>(7).fill(120_000)];

interface Attempt {
  attempt: number;
  outcome: string;
  trigger: string | null;
  http_status: number | null;
  recorded_at: string;
}
interface Delivery {
  delivery_id: string;
  state: string;
  test: boolean;
  attempts: Attempt[];
  retry_schedule: { retries_left: number; next_attempt: number; next_attempt_at: string } | null;
}

beforeAll(async () => {
  stack = await ConsoleStack.open('console-retry-now', [], DELAYS);
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

/** Partner A's delivery of `policy` once the log shows it in `state`. */
function deliveryIn(policy: string, state: string, timeoutMs = 60_000): Promise<{ delivery_id: string }> {
  return waitFor(
    async () =>
      (
        await stack.api<{ data: Array<{ delivery_id: string }> }>(
          'GET',
          `/api/admin/v1/deliveries?partner_id=${stack.partnerA}&policy_number=${policy}&status=${state}`,
        )
      ).data[0],
    `${policy} ${state} in the log`,
    timeoutMs,
  );
}

const detail = async (id: string) => (await stack.api<{ data: Delivery }>('GET', `/api/admin/v1/deliveries/${id}`)).data;

test('Retry now delivers a failing delivery under its own id, and the retry waiting in its tier sends nothing when it comes due', async () => {
  await stack.publishA('P-RETRY-1');
  const { delivery_id: id } = await deliveryIn('P-RETRY-1', 'failing');
  const p = await stack.page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(await stack.portalToken())}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.goto(`/console/#/deliveries/${id}`);
  await p.getByRole('heading', { name: /Delivery of P-RETRY-1/ }).waitFor();
  // The schedule: when the next attempt is due, with its zone, and the 8 retries left.
  const schedule = p.getByTestId('retry-schedule');
  await schedule.getByText(/Next attempt at .+ \((in \d+ s|due now)\); 8 retries left over 14 min more/).waitFor();
  await screenshot(p, 'retry-now');

  stack.fixedPolicies.add('P-RETRY-1');
  const fixedAt = Date.now();
  await p.getByRole('button', { name: 'Retry now' }).click();
  await p.getByRole('status').getByText('Retried now: delivered (HTTP 200).').waitFor({ timeout: 30_000 });
  await p
    .getByRole('heading', { name: /Delivery of P-RETRY-1/ })
    .getByText('delivered')
    .waitFor();
  const delivered = await detail(id);
  expect(delivered.delivery_id).toBe(id);
  expect(delivered.attempts.filter((a) => a.outcome === 'DELIVERED')).toEqual([
    expect.objectContaining({ attempt: 2, trigger: 'RETRY_NOW', http_status: 200 }),
  ]);
  expect(delivered.retry_schedule).toBeNull();

  // The tier's record comes due (30 s after the first failure) and sends nothing.
  const after = await waitFor(
    async () => {
      const d = await detail(id);
      return d.attempts.some((a) => a.outcome === 'ALREADY_DELIVERED') ? d : undefined;
    },
    'the tier record ALREADY_DELIVERED',
    60_000,
  );
  expect(after.state).toBe('delivered');
  const sentSinceFix = stack.receiverA.requests.filter((r) => r.headers['x-hookstream-delivery-id'] === id && r.at >= fixedAt);
  expect(sentSinceFix).toHaveLength(1);
  expect(sentSinceFix[0]!.headers['x-hookstream-attempt']).toBe('2');

  await p.reload();
  const timeline = p.locator('.timeline');
  await timeline.getByText('not sent: delivered already by a retry now').waitFor();
  expect(await timeline.getByText('retry now', { exact: true }).count()).toBe(1);
  await screenshot(p, 'retry-now-delivered');
}, 180_000);

test('a partner sends a test event of a chosen status to its endpoint and sees the answer at once; it is never retried', async () => {
  const p = await stack.page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(await stack.portalToken())}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.getByRole('link', { name: 'Send a test event' }).click();
  await p.getByRole('heading', { name: 'Send a test event' }).waitFor();
  await p.getByLabel('Status').selectOption('POLICY_CANCELLED');
  const sending = stack.receiverA.requests.length;
  await p.getByRole('button', { name: 'Send test event' }).click();
  const answer = p.getByTestId('test-answer');
  // Partner A's endpoint answers 503 to any policy not fixed: the answer says so.
  await answer.getByText('Your endpoint did not take it').waitFor({ timeout: 30_000 });
  await answer.getByText('503').waitFor();
  await screenshot(p, 'test-event');

  const received = stack.receiverA.requests.slice(sending);
  expect(received).toHaveLength(1);
  expect(received[0]!.body['status']).toBe('POLICY_CANCELLED');
  expect(String(received[0]!.body['policy_number'])).toMatch(/^TEST-/);
  const testId = String(received[0]!.headers['x-hookstream-delivery-id']);
  expect(testId).toMatch(/^test_/);
  // Signed as real ones: the partner's API key header.
  expect(received[0]!.headers['x-api-key']).toBeDefined();

  // Marked as a test in the log, kept out of the default list, never retried (a tier would have sent it again by now at the earliest in 30 s; none is written).
  const logged = await detail(testId);
  expect(logged.test).toBe(true);
  expect(logged.attempts).toEqual([expect.objectContaining({ outcome: 'FAILED_ATTEMPT', trigger: 'TEST', http_status: 503 })]);
  expect(logged.retry_schedule).toBeNull();
  const listed = await stack.api<{ data: Array<{ delivery_id: string }> }>('GET', `/api/admin/v1/deliveries?partner_id=${stack.partnerA}`);
  expect(listed.data.map((d) => d.delivery_id)).not.toContain(testId);
  const tests = await stack.api<{ data: Array<{ delivery_id: string; test: boolean }> }>(
    'GET',
    `/api/admin/v1/deliveries?partner_id=${stack.partnerA}&test=true`,
  );
  expect(tests.data).toEqual([expect.objectContaining({ delivery_id: testId, test: true })]);
}, 120_000);

test('a retry now that fails says so with its HTTP status, and the schedule goes on as it was', async () => {
  await stack.publishA('P-RETRY-2');
  const { delivery_id: id } = await deliveryIn('P-RETRY-2', 'failing');
  const before = (await detail(id)).retry_schedule;
  const p = await stack.page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(await stack.portalToken())}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.goto(`/console/#/deliveries/${id}`);
  await p.getByRole('button', { name: 'Retry now' }).click();
  await p.getByRole('status').getByText('The retry now failed: HTTP 503. The scheduled retries go on.').waitFor({ timeout: 30_000 });
  const after = await detail(id);
  expect(after.state).toBe('failing');
  expect(after.attempts.at(-1)).toMatchObject({ outcome: 'FAILED_ATTEMPT', trigger: 'RETRY_NOW', http_status: 503, attempt: 2 });
  expect(after.retry_schedule).toEqual(before);
  // The button is back for another try.
  await p.getByRole('button', { name: 'Retry now' }).waitFor();
}, 120_000);

test('a retry now of an older status of a policy a newer status was emitted for is superseded, not sent', async () => {
  await stack.publishA('P-ORDER-1');
  const { delivery_id: older } = await deliveryIn('P-ORDER-1', 'failing');
  await stack.fixture.events.publish([
    policyEvent(stack.partnerA, { version: 2 }, { policy_number: 'P-ORDER-1', status: 'POLICY_CANCELLED' }),
  ]);
  await waitFor(
    async () =>
      (await detail(older)).state === 'failing' &&
      (await stack.api<{ data: unknown[] }>('GET', `/api/admin/v1/deliveries?partner_id=${stack.partnerA}&policy_number=P-ORDER-1`)).data
        .length === 2,
    'the newer status in the log',
  );
  stack.fixedPolicies.add('P-ORDER-1');
  const sent = stack.receiverA.requests.length;
  const response = await fetch(`${stack.log.url}/api/portal/v1/deliveries/${older}/retry`, {
    method: 'POST',
    headers: { 'x-api-key': stack.keyA, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(202);
  const after = await waitFor(async () => {
    const d = await detail(older);
    return d.state === 'superseded' ? d : undefined;
  }, 'the retry now superseded');
  expect(after.attempts.at(-1)).toMatchObject({ outcome: 'SUPERSEDED', trigger: 'RETRY_NOW' });
  expect(stack.receiverA.requests.slice(sent).filter((r) => r.headers['x-hookstream-delivery-id'] === older)).toEqual([]);
});

test('a retry now of a delivery that is not failing is refused with the reason', async () => {
  const { delivery_id: id } = await deliveryIn('P-RETRY-1', 'delivered');
  const response = await fetch(`${stack.log.url}/api/portal/v1/deliveries/${id}/retry`, {
    method: 'POST',
    headers: { 'x-api-key': stack.keyA, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(409);
  expect(((await response.json()) as { message: string }).message).toMatch(
    /only a failing delivery can be retried now; this one is delivered/,
  );
});

test('the figure: retry now (POST) to DELIVERED in the log', async () => {
  const policies = ['P-FIG-1', 'P-FIG-2', 'P-FIG-3', 'P-FIG-4', 'P-FIG-5', 'P-FIG-6'];
  await stack.publishA(...policies);
  const ids = await Promise.all(policies.map((policy) => deliveryIn(policy, 'failing')));
  const figures: number[] = [];
  for (const [i, policy] of policies.entries()) {
    const id = ids[i]!.delivery_id;
    stack.fixedPolicies.add(policy);
    const started = performance.now();
    const response = await fetch(`${stack.log.url}/api/portal/v1/deliveries/${id}/retry`, {
      method: 'POST',
      headers: { 'x-api-key': stack.keyA, 'content-type': 'application/json' },
      body: '{"reason":"figure"}',
    });
    expect(response.status).toBe(202);
    // Asked every 20 ms (waitFor's 100 ms would blur the figure).
    while (!(await detail(id)).attempts.some((a) => a.outcome === 'DELIVERED' && a.trigger === 'RETRY_NOW')) {
      if (performance.now() - started > 30_000) throw new Error(`${policy} not delivered by its retry now within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    figures.push(performance.now() - started);
  }
  const sorted = [...figures].sort((a, b) => a - b);
  const median = (sorted[2]! + sorted[3]!) / 2;
  console.log(
    `retry now → DELIVERED in the log, ${figures.length} runs: median ${median.toFixed(0)} ms, range ${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)} ms (${figures.map((f) => f.toFixed(0)).join(', ')})`,
  );
  expect(figures.every((f) => f < 30_000)).toBe(true);
}, 180_000);
