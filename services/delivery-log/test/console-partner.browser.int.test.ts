/**
 * The console in a real Chromium, as a partner sees it, against the real pipeline (Kafka, the
 * services, the delivery log on a PostgreSQL database of its own): it opens its portal link, finds its
 * dead-lettered delivery and why, its endpoint is fixed, it resends and sees it delivered; another
 * partner's delivery is out of its reach by URL; signed in with its API key, it sees its webhooks
 * accepted (one sent twice: replayed) and refused (the contract's error code and field), and its
 * endpoints' health; the sign-in and the deliveries fit a phone. No page logs an error or breaks
 * its Content-Security-Policy. Screenshots of docs/console.md are taken here.
 */
import { screenshot } from '../../../test/helpers/browser';
import { postWebhook, webhook } from '../../../test/helpers/ingress';
import { waitFor } from '../../../test/helpers/infrastructure';
import { ConsoleStack } from './support/console-stack';

let stack: ConsoleStack;

beforeAll(async () => {
  stack = await ConsoleStack.open('console-partner', [
    ['A', 'P-CONSOLE-1'],
    ['B', 'P-OTHER-1'],
  ]);
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

test('a partner opens its portal link, sees why its callback failed, resends it once its endpoint is fixed, and sees it delivered', async () => {
  await stack.deadLettered('P-CONSOLE-1');
  const token = await stack.portalToken();
  const p = await stack.page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(token)}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  expect(p.url()).not.toContain(token);
  // Its own deliveries only.
  await p.getByRole('link', { name: 'P-CONSOLE-1' }).waitFor();
  expect(await p.getByRole('link', { name: 'P-OTHER-1' }).count()).toBe(0);
  await screenshot(p, 'deliveries');

  await p.getByRole('link', { name: 'P-CONSOLE-1' }).click();
  await p.getByRole('heading', { name: /Delivery of P-CONSOLE-1/ }).waitFor();
  const timeline = p.locator('.timeline');
  await timeline.getByText('dead lettered').waitFor();
  expect(await timeline.locator('li').count()).toBe(10);
  expect(await timeline.getByText('503').count()).toBeGreaterThanOrEqual(9);
  // How to check it: the partner's method, and the headers of the last send with the credential's value redacted.
  const verifying = p.getByRole('region', { name: 'Verifying it' });
  await verifying.getByText('API_KEY').waitFor();
  // Among the headers sent (the steps also name [redacted], saying where the callback key is not shown).
  expect(await verifying.locator('table').getByText('[redacted]').count()).toBe(1);
  expect(await verifying.getByText('x-hookstream-delivery-id').count()).toBe(1);
  await screenshot(p, 'delivery');

  stack.fixedPolicies.add('P-CONSOLE-1');
  await p.getByLabel('Reason (for the audit trail)').fill('endpoint fixed (ticket 9)');
  await p.getByRole('button', { name: 'Resend' }).click();
  await p
    .getByRole('status')
    .getByText(/Queued/)
    .waitFor();
  // The new state at once: no "dead lettered" left in the heading, no second Resend to click.
  const heading = p.getByRole('heading', { name: /Delivery of P-CONSOLE-1/ });
  expect(await heading.innerText()).not.toContain('dead lettered');
  expect(await p.getByRole('button', { name: /Resend/ }).count()).toBe(0);
  // The page follows the delivery by itself until it is delivered.
  await p
    .getByRole('heading', { name: /Delivery of P-CONSOLE-1/ })
    .getByText('delivered')
    .waitFor({ timeout: 60_000 });
  expect(await timeline.locator('li').count()).toBe(11);
}, 180_000);

test("a partner cannot reach another partner's delivery by its URL", async () => {
  const other = await waitFor(
    async () =>
      (await stack.api<{ data: Array<{ delivery_id: string }> }>('GET', `/api/admin/v1/deliveries?partner_id=${stack.partnerB}`)).data[0],
    "partner B's delivery",
    30_000,
  );
  const p = await stack.page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(await stack.portalToken())}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.goto(`/console/#/deliveries/${other.delivery_id}`);
  await p
    .getByRole('alert')
    .getByText(/no delivery with that id/)
    .waitFor();
  expect(await p.getByText('P-OTHER-1').count()).toBe(0);
  // The page's own request was refused: the console shows the 404 it got.
  await p.getByText(/404 NOT_FOUND_ERR/).waitFor();
  stack.expectProblems(/status of 404/);
});

test("a partner signed in with its API key sees its webhooks accepted, replayed and refused, and its endpoints' health", async () => {
  const accepted = webhook({ transaction_number: 'TRX-CONSOLE-1' });
  expect((await postWebhook(stack.ingressUrl, stack.keyA, accepted)).status).toBe(200);
  // Sent again with its request_id and body, as a partner retrying after a timeout would.
  expect((await postWebhook(stack.ingressUrl, stack.keyA, accepted)).status).toBe(200);
  const refused = await postWebhook(stack.ingressUrl, stack.keyA, webhook({ request_id: 'REJ-CONSOLE-1', transaction_number: undefined }));
  expect(refused.status).toBe(400);

  const p = await stack.page();
  await p.goto('/console/');
  await p.getByLabel('API key', { exact: true }).fill(stack.keyA);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  const listed = () => p.waitForResponse((r) => r.url().includes('/api/portal/v1/webhooks?'));
  await Promise.all([listed(), p.getByRole('link', { name: 'Webhooks' }).click()]);
  const row = p.locator('tbody tr', { hasText: 'TRX-CONSOLE-1' });
  await waitFor(
    async () => {
      if ((await row.getByText('replayed ×1').count()) > 0) return true;
      // Reloaded until the projection has the replay; each reload waits for its own answer (none is cut short).
      await Promise.all([listed(), p.reload()]);
      await p.getByRole('heading', { name: 'Inbound webhooks' }).waitFor();
      return (await row.getByText('replayed ×1').count()) > 0 || undefined;
    },
    'the webhook shown replayed once',
    30_000,
  );
  await screenshot(p, 'webhooks');
  await row.getByRole('link', { name: 'TRX-CONSOLE-1' }).click();
  await p.getByRole('heading', { name: 'Webhook TRX-CONSOLE-1' }).waitFor();
  await p.getByText('You sent this webhook again once with the same request_id and body.').waitFor();

  await p.getByRole('link', { name: 'Webhooks' }).click();
  await p.getByRole('link', { name: 'Refused' }).click();
  const refusal = p.locator('tbody tr', { hasText: 'REJ-CONSOLE-1' });
  await refusal.getByText('INVALID_PAYLOAD_VALIDATION_ERR').waitFor();
  expect(await refusal.locator('code.field').allInnerTexts()).toEqual(['transaction_number']);
  await screenshot(p, 'webhooks-refused');

  await p.getByRole('link', { name: 'Endpoint health' }).click();
  await p.getByRole('heading', { name: 'Endpoint main' }).waitFor();
  await screenshot(p, 'health');
}, 90_000);

test('the sign-in page and the deliveries fit a phone', async () => {
  const p = await stack.page('phone');
  await p.goto('/console/');
  await p.getByRole('button', { name: 'Sign in' }).waitFor();
  await screenshot(p, 'sign-in');
  await stack.signInAsOperator(p, false);
  await p.getByRole('link', { name: 'P-CONSOLE-1' }).first().waitFor();
  // Nothing wider than the screen but the table's own scrolling box.
  // (Runs in the page: globalThis is its window.)
  const overflow = await p.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return root.documentElement.scrollWidth - root.documentElement.clientWidth;
  });
  expect(overflow).toBeLessThanOrEqual(0);
  // The deliveries-phone screenshot, with a long policy number, is console-quality.browser.int.test.ts's.
});
