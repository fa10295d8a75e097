/**
 * Operational notifications in the console, in a real Chromium against the real pipeline
 * (support/console-stack.ts; docs/notifications.md): a partner signed in with its API key
 * subscribes a URL on its Notifications page, in its menu and linked from Endpoints (one the SSRF guard refuses
 * first: the error beside the URL); its endpoint then fails with no success long enough, and one endpoint.failing reaches
 * that URL, signed with its Standard Webhooks secret (the official verifier), and shows as
 * delivered on the page. An operator sees it on the partner's page and switches notifications off.
 * Every answer of the notification routes fits the served OpenAPI document (support/api-client.ts).
 */
import { Webhook } from 'standardwebhooks';
import { screenshot } from '../../../test/helpers/browser';
import { policyEvent, type Receiver } from '../../../test/helpers/outbound';
import { retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { waitFor } from '../../../test/helpers/infrastructure';
import { ApiClient } from './support/api-client';
import { ConsoleStack } from './support/console-stack';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const partner = uniquePartnerId('console-nt');
let stack: ConsoleStack;
let notified: Receiver;
let key: string;

beforeAll(async () => {
  // Judged every 300 ms; an endpoint failing for 1.2 s without a success is failing.
  stack = await ConsoleStack.open('console-notifications', [], retryTierDelays(200), {
    DELIVERY_LOG_NOTIFICATION_INTERVAL_MS: '300',
    DELIVERY_LOG_NOTIFY_FAILING_MINUTES: '0.02',
  });
  const failing = await stack.fixture.receiver(() => 503);
  notified = await stack.fixture.receiver(() => 200);
  key = await stack.fixture.partners.create(partner, {
    callback_endpoints: [{ endpoint_id: 'main', url: failing.url }],
    outbound_auth: { method: 'STANDARD_WEBHOOKS', secret: SECRET },
  });
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

test('a partner subscribes on its Notifications page, its failing endpoint is notified once, signed, and shows as delivered', async () => {
  const p = await stack.page();
  await p.goto('/console/');
  await p.getByLabel('API key', { exact: true }).fill(key);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  // In the menu, and linked from the Endpoints page where a failing endpoint is fixed.
  await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Notifications' }).waitFor();
  await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
  await p.getByRole('link', { name: 'Notify me when an endpoint fails' }).click();
  await p.getByRole('heading', { name: 'Notifications', exact: true }).waitFor();

  const url = p.getByLabel('Notification URL (https)');
  await url.fill('https://10.20.30.40/notifications');
  await p.getByRole('button', { name: 'Save' }).click();
  await p.locator('#error-url').waitFor();
  expect(await p.locator('#error-url').innerText()).toMatch(/refused by the SSRF guard: 10\.20\.30\.40 is a private address/);
  stack.expectProblems(/status of 400/);

  await url.fill(notified.url);
  // Only the failing: its delivery is dead-lettered within seconds, which would be news of its own.
  await p.getByLabel('A failing endpoint delivers again').uncheck();
  await p.getByLabel('Dead letters are waiting to be resent').uncheck();
  await p.getByRole('button', { name: 'Save' }).click();
  await p.getByRole('status').getByText('Saved: notifications go to this URL.').waitFor();

  await stack.fixture.events.publish([policyEvent(partner, {}, { policy_number: 'P-NT-1' })]);
  await waitFor(() => notified.requests.length > 0, 'an endpoint.failing notification', 60_000);
  // Judged again and again while it keeps failing: still one.
  await new Promise((resolve) => setTimeout(resolve, 2_000));

  expect(notified.requests).toHaveLength(1);
  const [request] = notified.requests;
  const body = new Webhook(SECRET).verify(request!.raw.toString('utf8'), {
    'webhook-id': String(request!.headers['webhook-id']),
    'webhook-timestamp': String(request!.headers['webhook-timestamp']),
    'webhook-signature': String(request!.headers['webhook-signature']),
  }) as { type: string; partner_id: string; data: { endpoint_id: string } };
  expect([body.type, body.partner_id, body.data.endpoint_id]).toEqual(['endpoint.failing', partner, 'main']);

  await p.reload();
  const row = p.locator('table.notifications tbody tr', { hasText: 'endpoint.failing' });
  await row.getByText('delivered').waitFor();
  await screenshot(p, 'notifications');
});

test('an operator sees the partner’s notifications on its page and switches them off', async () => {
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/partners/${partner}`);
  const section = p.locator('section', { has: p.getByRole('heading', { name: 'Notifications' }) });
  await section.getByText(notified.url).waitFor();
  await section.locator('tbody tr', { hasText: 'endpoint.failing' }).waitFor();

  await section.getByLabel('Reason (for the audit trail)').fill('partner asked for a pause');
  await section.getByRole('button', { name: 'Switch notifications off' }).click();
  await p.getByRole('dialog').getByRole('button', { name: 'Switch off' }).click();
  await section.getByText('off (switched off by an operator)').waitFor();

  const answer = await fetch(`${stack.log.url}/api/admin/v1/partners/${partner}/notifications`, {
    headers: { authorization: `Bearer ${stack.operatorToken}` },
  });
  expect(((await answer.json()) as { data: { subscription: { operator_off: boolean } } }).data.subscription.operator_off).toBe(true);
});

test('the notification routes answer as the served OpenAPI document says, refusals included', async () => {
  const api = await ApiClient.open(stack.log.url);
  const asPartner = { 'x-api-key': key };
  const asOperator = { authorization: `Bearer ${stack.operatorToken}` };
  const base = '/api/portal/v1/notifications';

  const settings = await api.get(base, asPartner);
  const sent = await api.get(`${base}/sent?limit=1`, asPartner);
  const refusedUrl = await api.send('put', base, asPartner, { url: 'https://10.0.0.1/n' });
  const unknownEvent = await api.send('put', base, asPartner, { url: notified.url, events: ['endpoint.exploded'] });
  const operatorView = await api.get(`/api/admin/v1/partners/${partner}/notifications`, asOperator);
  const switchedOn = await api.post(`/api/admin/v1/partners/${partner}/notifications`, asOperator, { enabled: true, reason: 'resumed' });
  const deleted = await api.send('delete', base, asPartner, {});
  const deletedAgain = await api.send('delete', base, asPartner, {});

  expect((settings.json as { data: { subscription: { operator_off: boolean } } }).data.subscription.operator_off).toBe(true);
  expect((sent.json as { data: Array<{ type: string; state: string }> }).data.map((n) => [n.type, n.state])).toEqual([
    ['endpoint.failing', 'delivered'],
  ]);
  expect([refusedUrl.status, unknownEvent.status]).toEqual([400, 400]);
  expect((operatorView.json as { data: { recent: unknown[] } }).data.recent).toHaveLength(1);
  expect((switchedOn.json as { data: { operator_off: boolean } }).data.operator_off).toBe(false);
  expect([deleted.status, deletedAgain.status]).toEqual([204, 404]);
});
