/**
 * The console in a real Chromium against the real pipeline: a partner opens a webhook the ingress
 * refused and sees the request as it arrived (its API key and another system's credential shown
 * as [redacted], the body pretty-printed with the field at fault marked and listed with its
 * message); and a partner whose callbacks are signed sees the signature each send carried, equal
 * to what its endpoint received, with a copy button and the code that verifies it. Screenshots
 * `refused-webhook` and `signatures` of docs/console.md are taken here.
 */
import type { Page } from 'playwright-core';
import { screenshot } from '../../../test/helpers/browser';
import { postWebhook, webhook } from '../../../test/helpers/ingress';
import { waitFor } from '../../../test/helpers/infrastructure';
import { policyEvent } from '../../../test/helpers/outbound';
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { ConsoleStack } from './support/console-stack';

let stack: ConsoleStack;

beforeAll(async () => {
  stack = await ConsoleStack.open('console-refused', []);
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

async function signInWithKey(p: Page, key: string): Promise<void> {
  await p.goto('/console/');
  await p.getByLabel('API key', { exact: true }).fill(key);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
}

/**
 * Waits, through the operator API, until the log has projected what a page will show: a page
 * reloaded while its requests are in flight would abort them, which the page checks count as failures.
 */
function projected<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  return waitFor(read, what, 30_000);
}

test('a refused webhook opened: the request as it arrived, credentials [redacted], the field at fault marked in the body', async () => {
  const badUrl = 'ftp://docs.example/cert.pdf';
  const refused = webhook({
    request_id: 'REJ-OPEN-1',
    transaction_number: 'TRX-OPEN-1',
    documents: [{ type: 'POLICY_CERTIFICATE', url: badUrl, filename: 'cert.pdf' }],
  });
  const answer = await postWebhook(stack.ingressUrl, stack.keyA, refused, { cookie: 'sid=not-for-us', 'x-trace-id': 'trace-open-1' });
  expect(answer.status).toBe(400);

  await projected(async () => {
    const page = await stack.api<{ data: unknown[] }>(
      'GET',
      `/api/admin/v1/rejected-webhooks?partner_id=${stack.partnerA}&request_id=REJ-OPEN-1`,
    );
    return page.data[0];
  }, 'the refusal in the log');

  const p = await stack.page();
  await signInWithKey(p, stack.keyA);
  await p.getByRole('link', { name: 'Webhooks' }).click();
  await p.getByRole('link', { name: 'Refused' }).click();
  const row = p.locator('tbody tr', { hasText: 'REJ-OPEN-1' });
  await row.waitFor();
  await row.getByRole('link').first().click();
  await p.getByRole('heading', { name: 'Refused webhook' }).waitFor();

  // The headers as they arrived: the API key and the cookie redacted, the others as sent.
  const headers = p.locator('table.request-headers');
  const valueOf = async (name: string) =>
    headers
      .locator('tr', { has: p.locator('th', { hasText: new RegExp(`^${name}$`, 'i') }) })
      .locator('td')
      .innerText();
  expect(await valueOf('x-api-key')).toBe('[redacted]');
  expect(await valueOf('cookie')).toBe('[redacted]');
  expect(await valueOf('x-trace-id')).toBe('trace-open-1');
  const text = await p.locator('body').innerText();
  expect(text).not.toContain(stack.keyA);
  expect(text).not.toContain('not-for-us');

  // The body, pretty-printed, the field at fault marked with its value, and listed with its message.
  const body = p.locator('pre.marked-body');
  await body.getByText('"request_id": "REJ-OPEN-1"').waitFor();
  const marked = body.locator('mark.at-fault');
  expect(await marked.count()).toBe(1);
  expect(await marked.getAttribute('data-field')).toBe('documents[0].url');
  expect(await marked.innerText()).toBe(`"url": "${badUrl}"`);
  const listed = p.locator('li[data-field="documents[0].url"]');
  expect(await listed.innerText()).toMatch(/documents\[0\]\.url .*http.*marked in the body/);
  await p.setViewportSize({ width: 1280, height: 1500 });
  await screenshot(p, 'refused-webhook');
}, 120_000);

test('the signature each attempt carried is shown, equal to what the endpoint received, with the code that verifies it', async () => {
  const partnerD = uniquePartnerId('console-d');
  const receiver = await stack.fixture.receiver(() => 200);
  const keyD = await stack.fixture.partners.create(partnerD, {
    callback_endpoints: [{ endpoint_id: 'main', url: receiver.url }],
    outbound_auth: { method: 'HMAC_SHA256', api_key: 'hk-console-d', secret: 'hmac-secret-console-d' },
  });
  await stack.fixture.events.publish([policyEvent(partnerD, {}, { policy_number: 'P-SIGNED-1' })]);
  const [request] = await waitFor(() => receiver.requests.length > 0 && receiver.requests, 'the signed callback to arrive', 30_000);
  const received = String(request!.headers['x-signature']);
  expect(received).toMatch(/^[A-Za-z0-9+/]{43}=$/);

  await projected(async () => {
    const page = await stack.api<{ data: Array<{ delivery_id: string; state: string }> }>(
      'GET',
      `/api/admin/v1/deliveries?partner_id=${partnerD}&status=delivered`,
    );
    return page.data[0];
  }, 'the delivery delivered in the log');

  const p = await stack.page();
  await signInWithKey(p, keyD);
  await p.getByRole('link', { name: 'P-SIGNED-1' }).click();
  await p.getByRole('heading', { name: /Delivery of P-SIGNED-1/ }).waitFor();
  const verifying = p.getByRole('region', { name: 'Verifying it' });
  const signature = verifying.locator('.signature-list li[data-attempt="1"] input');
  await signature.waitFor();
  expect(await signature.inputValue()).toBe(received);
  // The credential stays redacted among the headers; the signature is shown there too.
  expect(await verifying.locator('table').getByText('[redacted]').count()).toBe(1);
  // The code for its method, in each language.
  const code = verifying.locator('pre.snippet');
  expect(await code.innerText()).toContain('export function verifyHmacSha256(');
  await verifying.getByRole('button', { name: 'Python' }).click();
  expect(await code.innerText()).toContain('def verify_hmac_sha256(');
  await verifying.getByRole('button', { name: 'Java' }).click();
  expect(await code.innerText()).toContain('static boolean verifyHmacSha256(');
  await verifying.getByRole('button', { name: 'Node.js' }).click();
  await p.setViewportSize({ width: 1280, height: 1400 });
  await verifying.getByRole('heading', { name: /The signature each send carried/ }).scrollIntoViewIfNeeded();
  await p.evaluate(() => (globalThis as unknown as { scrollBy: (x: number, y: number) => void }).scrollBy(0, -200));
  await screenshot(p, 'signatures');
}, 120_000);
