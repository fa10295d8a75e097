/**
 * Retry failing deliveries in a real Chromium against the real pipeline (Kafka, the services, the
 * delivery log on a PostgreSQL database of its own), the retry tiers slowed down so the deliveries
 * stay failing until the partner acts: two deliveries failing to partner A's endpoint, the endpoint
 * fixed; on Endpoints the partner dry-runs (the count and the hour's places in words), confirms, and
 * reads "2 retried."; both are then delivered by their retry now. A screenshot of docs/console.md.
 */
import { screenshot } from '../../../test/helpers/browser';
import { waitFor } from '../../../test/helpers/infrastructure';
import { ConsoleStack } from './support/console-stack';

let stack: ConsoleStack;

/** Every tier longer than the test: only the retry now sends them again. */
const DELAYS = Array<number>(8).fill(600_000);
const POLICIES = ['P-RF-B1', 'P-RF-B2'];

interface Delivery {
  delivery_id: string;
  state: string;
  attempts: Array<{ outcome: string; trigger: string | null }>;
}

beforeAll(async () => {
  stack = await ConsoleStack.open('console-retry-failing', [], DELAYS);
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

const deliveriesOfA = async (state: string) =>
  (await stack.api<{ data: Delivery[] }>('GET', `/api/admin/v1/deliveries?partner_id=${stack.partnerA}&status=${state}`)).data;

test('a partner dry-runs, then retries every failing delivery of its endpoint, and reads the outcome in words', async () => {
  await stack.publishA(...POLICIES);
  const failing = await waitFor(
    async () => {
      const found = await deliveriesOfA('failing');
      return found.length === POLICIES.length ? found : undefined;
    },
    'both failing in the log',
    60_000,
  );
  POLICIES.forEach((policy) => stack.fixedPolicies.add(policy));

  const p = await stack.page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(await stack.portalToken())}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.getByRole('link', { name: 'Endpoints', exact: true }).click();
  const panel = p.getByRole('region', { name: 'Retry failing deliveries' });
  await panel.getByRole('button', { name: 'Dry run' }).click();
  await panel
    .getByText(/^2 deliveries failing to main: 2 would be retried now, 0 not\. You have \d+ resends and retries now left this hour\.$/)
    .waitFor();
  expect(await deliveriesOfA('failing')).toHaveLength(2);

  await panel.getByRole('button', { name: 'Retry 2 now' }).click();
  await p.getByRole('dialog', { name: 'Retry 2 deliveries now?' }).getByRole('button', { name: 'Retry 2' }).click();
  await panel.getByText('2 retried.').waitFor({ timeout: 30_000 });
  await screenshot(p, 'retry-failing');

  const delivered = await waitFor(
    async () => {
      const found = await deliveriesOfA('delivered');
      return found.length === POLICIES.length ? found : undefined;
    },
    'both delivered in the log',
    60_000,
  );
  expect(delivered.map((d) => d.delivery_id).sort()).toEqual(failing.map((d) => d.delivery_id).sort());
  for (const { delivery_id: id } of delivered) {
    const { data } = await stack.api<{ data: Delivery }>('GET', `/api/admin/v1/deliveries/${id}`);
    expect(data.attempts.filter((a) => a.outcome === 'DELIVERED')).toEqual([expect.objectContaining({ trigger: 'RETRY_NOW' })]);
  }
}, 180_000);
