/**
 * What a partner's engineer and an operator tripped over in the console (issue 46), each in a real
 * Chromium against the real pipeline (support/console-stack.ts): the words a page uses must say
 * what the system does, once, in the words the partner knows.
 */
import type { Page } from 'playwright-core';
import { CREDENTIAL_HEADER_PARTS } from '@hookstream/contract';
import { postWebhook, webhook } from '../../../test/helpers/ingress';
import { waitFor } from '../../../test/helpers/infrastructure';
import { screenshot } from '../../../test/helpers/browser';
import { policyEvent } from '../../../test/helpers/outbound';
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { ConsoleStack } from './support/console-stack';

let stack: ConsoleStack;

beforeAll(async () => {
  stack = await ConsoleStack.open('console-words', []);
}, 400_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

async function signInWithKey(p: Page, key: string): Promise<void> {
  await p.goto('/console/');
  await p.getByLabel('API key', { exact: true }).fill(key);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
}

test('an HMAC_SHA256 delivery: the steps and the code name the callback key (its X-API-Key value), never the hsk_ sign-in key', async () => {
  const partner = uniquePartnerId('words-hmac');
  const receiver = await stack.fixture.receiver(() => 200);
  const key = await stack.fixture.partners.create(partner, {
    callback_endpoints: [{ endpoint_id: 'main', url: receiver.url }],
    outbound_auth: { method: 'HMAC_SHA256', api_key: 'hk-words', secret: 'hmac-secret-words' },
  });
  await stack.fixture.events.publish([policyEvent(partner, {}, { policy_number: 'P-WORDS-HMAC' })]);
  await waitFor(
    async () => (await stack.api<{ data: unknown[] }>('GET', `/api/admin/v1/deliveries?partner_id=${partner}&status=delivered`)).data[0],
    'the delivery delivered in the log',
    60_000,
  );

  const p = await stack.page();
  await signInWithKey(p, key);
  await p.getByRole('link', { name: 'P-WORDS-HMAC' }).click();
  const verifying = p.getByRole('region', { name: 'Verifying it' });
  const steps = await verifying.locator('ol').innerText();
  expect(steps).not.toMatch(/your API key/i);
  expect(steps).toMatch(/the callback key \(the value of X-API-Key\)/);
  expect(steps).toMatch(/not the hsk_… API key you sign in with/);
  for (const language of ['Node.js', 'Python', 'Java']) {
    await verifying.getByRole('button', { name: language }).click();
    expect(await verifying.locator('pre.snippet').innerText()).toMatch(/the callback key[\s\S]*Not the hsk_… API key you sign in/);
  }
}, 120_000);

test('the Disable partner confirmation says its retrying callbacks and new statuses are dead-lettered, and that enabling sends none', async () => {
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/partners/${stack.partnerB}`);
  await p.getByLabel('Reason', { exact: true }).fill('checking the words only');
  await p.getByRole('button', { name: 'Disable partner' }).click();
  const dialog = p.getByRole('dialog', { name: /Disable .*\?/ });
  const said = await dialog.innerText();
  // What deliver-callback.ts and plan-callbacks.ts do with a disabled partner's records.
  expect(said).not.toMatch(/stop until it is enabled again/);
  expect(said).toMatch(/each callback already waiting for a retry is dead-lettered at its next attempt/);
  expect(said).toMatch(/each new policy status is dead-lettered too \(PARTNER_DISABLED\)/);
  expect(said).toMatch(/Enabling it again sends none of them: replay them from Dead letters/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
});

test('rotating the signing secret again during its overlap warns which secret stops signing when; the page shows the code that verifies', async () => {
  const partner = uniquePartnerId('words-sw');
  const receiver = await stack.fixture.receiver(() => 200);
  const key = await stack.fixture.partners.create(partner, {
    callback_endpoints: [{ endpoint_id: 'main', url: receiver.url }],
    outbound_auth: { method: 'STANDARD_WEBHOOKS', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
  });
  const p = await stack.page();
  await signInWithKey(p, key);
  await p.getByRole('link', { name: 'Signing secret' }).click();
  const verifying = p.getByRole('region', { name: 'Verifying your callbacks' });
  expect(await verifying.locator('pre.snippet').innerText()).toContain('verifyStandardWebhooks');

  // The first rotation: no overlap yet, so no warning.
  await p.getByRole('button', { name: 'Rotate signing secret' }).click();
  const first = p.getByRole('dialog', { name: 'Rotate your signing secret?' });
  expect(await first.getByRole('alert').count()).toBe(0);
  await first.getByRole('button', { name: 'Rotate now' }).click();
  await p.getByLabel('New signing secret').waitFor();
  await p.getByText('Previous secret also signs until').waitFor();

  // Again, during the overlap it opened: the secret just shown stops at once, the oldest signs on.
  await p.getByRole('button', { name: 'Rotate signing secret' }).click();
  const again = p.getByRole('dialog', { name: 'Rotate again during the overlap?' });
  const warning = await again.getByRole('alert').innerText();
  expect(warning).toMatch(/the secret your last rotation showed stops signing at once/);
  expect(warning).toMatch(/The secret from before it keeps signing beside the new one until .* \(the overlap is not extended\)/);
  await again.getByRole('button', { name: 'Cancel' }).click();
  await again.waitFor({ state: 'detached' });
}, 90_000);

test('a test event of a status the chosen endpoint never receives says so, with what to do, before it is sent', async () => {
  const partner = uniquePartnerId('words-test');
  const receiver = await stack.fixture.receiver(() => 200);
  const key = await stack.fixture.partners.create(partner, {
    callback_endpoints: [
      { endpoint_id: 'main', url: receiver.url },
      { endpoint_id: 'cancels', url: receiver.url, statuses: ['POLICY_CANCELLED'] },
    ],
    outbound_auth: { method: 'API_KEY', api_key: 'k-words' },
  });
  const p = await stack.page();
  await signInWithKey(p, key);
  await p.getByRole('link', { name: 'Send a test event' }).click();
  const endpoint = p.getByLabel('Endpoint');
  await endpoint.locator('option', { hasText: 'cancels' }).waitFor({ state: 'attached' });
  const warning = p.getByTestId('never-received');
  // Every status reaches the first endpoint: nothing to say.
  expect(await warning.count()).toBe(0);
  await endpoint.selectOption('cancels');
  expect(await warning.innerText()).toMatch(
    /cancels receives only policy cancelled: real policy active callbacks never go to it\. .*choose one of its statuses, or change them on Endpoints/,
  );
  await p.getByLabel('Status').selectOption('POLICY_CANCELLED');
  await warning.waitFor({ state: 'detached' });
});

test('a refused webhook: only headers named like a credential show [redacted], harmless ones as sent; the page states the one rule', async () => {
  const refused = webhook({
    request_id: 'REJ-WORDS-1',
    transaction_number: 'TRX-WORDS-1',
    documents: [{ type: 'POLICY_CERTIFICATE', url: 'ftp://docs.example/cert.pdf', filename: 'cert.pdf' }],
  });
  const headers = { 'x-request-source': 'erp-batch', 'x-foo': 'bar', 'x-gateway-token': 'not-for-us' };
  expect((await postWebhook(stack.ingressUrl, stack.keyA, refused, headers)).status).toBe(400);
  await waitFor(
    async () =>
      (await stack.api<{ data: unknown[] }>('GET', `/api/admin/v1/rejected-webhooks?partner_id=${stack.partnerA}&request_id=REJ-WORDS-1`))
        .data[0],
    'the refusal in the log',
    30_000,
  );
  const p = await stack.page();
  await signInWithKey(p, stack.keyA);
  await p.getByRole('link', { name: 'Webhooks' }).click();
  await p.getByRole('link', { name: 'Refused' }).click();
  await p.locator('tbody tr', { hasText: 'REJ-WORDS-1' }).getByRole('link').first().click();
  const section = p.getByRole('region', { name: 'Headers as they arrived' });
  const valueOf = (name: string) =>
    section
      .locator('tr', { has: p.locator('th', { hasText: new RegExp(`^${name}$`, 'i') }) })
      .locator('td')
      .innerText();
  expect(await valueOf('x-request-source')).toBe('erp-batch');
  expect(await valueOf('x-foo')).toBe('bar');
  expect(await valueOf('x-gateway-token')).toBe('[redacted]');
  expect(await valueOf('x-api-key')).toBe('[redacted]');
  // The rule as the ingress applies it, word for word.
  const rule = `${CREDENTIAL_HEADER_PARTS.slice(0, -1).join(', ')} or ${CREDENTIAL_HEADER_PARTS.at(-1)}`;
  expect(await section.locator('p').first().innerText()).toContain(
    `A header whose name contains ${rule} (in any case) shows as [redacted]`,
  );
}, 90_000);

test('after a replay its result stands alone: no Dry run of every dead letter the filters select under the cursor until asked for', async () => {
  await stack.publishA('P-WORDS-DL');
  await stack.deadLettered('P-WORDS-DL');
  stack.fixedPolicies.add('P-WORDS-DL');
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/dead-letters?partner_id=${stack.partnerA}&policy_number=P-WORDS-DL`);
  await p.getByLabel(/^Choose P-WORDS-DL /).check();
  await p.getByRole('button', { name: 'Dry run' }).click();
  await p.getByText('Would do: 1 replayed').waitFor();
  await p.getByLabel('Reason (required, for the audit trail)').fill('checking the panel after a replay');
  await p.getByRole('button', { name: 'Replay 1' }).click();
  await p.getByRole('dialog', { name: 'Replay 1 dead letter?' }).getByRole('button', { name: 'Replay 1' }).click();
  await p.getByText(/Replayed: run/).waitFor();

  const panel = p.getByRole('region', { name: 'Replayed' });
  await panel.waitFor();
  expect(await p.getByRole('button', { name: 'Dry run' }).count()).toBe(0);
  expect(await p.getByText(/Every dead letter the filters select/).count()).toBe(0);
  // Another replay only when asked for: then the panel says what its dry run would select.
  await panel.getByRole('button', { name: 'Start another replay' }).click();
  await p
    .getByRole('region', { name: 'Replay the selected dead letters' })
    .getByText(/Every dead letter the filters select/)
    .waitFor();
  await p.getByRole('button', { name: 'Dry run' }).waitFor();
}, 120_000);

test('self-service off: the Endpoints page says so plainly (a warning, not a faint note) and no line beside it offers changes', async () => {
  const partner = uniquePartnerId('words-off');
  const receiver = await stack.fixture.receiver(() => 200);
  const key = await stack.fixture.partners.create(partner, {
    callback_endpoints: [{ endpoint_id: 'main', url: receiver.url }],
    outbound_auth: { method: 'API_KEY', api_key: 'k-off' },
  });
  // Switched off: 200 with the partner as written (a 503 under load is asked again, as its Retry-After says).
  const switched = await waitFor(
    async () => {
      const answer = await stack.apiAnswer('POST', `/api/admin/v1/partners/${partner}/self-service`, {
        enabled: false,
        reason: 'checking the words',
      });
      return answer.status === 503 ? undefined : answer;
    },
    'the switch to be answered',
    60_000,
  );
  expect(switched).toMatchObject({ status: 200, json: { data: { self_service: false } } });
  // What the Endpoints page reads, once the log has the switch.
  await waitFor(
    async () => {
      const answer = await fetch(`${stack.log.url}/api/portal/v1/endpoints`, { headers: { 'x-api-key': key } });
      const text = await answer.text();
      // Anything else is kept as the last error, for the timeout to say what the log answered.
      if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${text}`);
      return (JSON.parse(text) as { data: { self_service: boolean } | null }).data?.self_service === false || undefined;
    },
    'self-service off in the log',
    90_000,
  );
  const p = await stack.page();
  await signInWithKey(p, key);
  await p.getByRole('link', { name: 'Endpoints' }).click();
  const said = p.getByText(/The insurer turned self-service off for you/);
  await said.waitFor();
  expect(await said.getAttribute('class')).toBe('warning');
  expect(await said.innerText()).toMatch(/you cannot add, edit, disable or delete endpoints here/);
  const page = await p.locator('main').innerText();
  expect(page).not.toMatch(/Changes need you signed in/);
  expect(page).not.toMatch(/recorded in the insurer’s audit trail/);
  expect(await p.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
}, 150_000);

test('the operator menu marks the current page and holds one line at 1280 px; times are typed ISO 24-hour; the audit trail says actions in words', async () => {
  const p = await stack.page();
  await stack.signInAsOperator(p);
  const menu = p.getByRole('navigation', { name: 'Main' });
  await menu.getByRole('link', { name: 'Dead letters' }).click();
  await p.getByRole('heading', { name: 'Dead letters', exact: true }).waitFor();
  expect(await menu.locator('a[aria-current="page"]').allInnerTexts()).toEqual(['Dead letters']);
  // Every item on the line of the first (the test's desktop is 1280 px wide; it wrapped at 1366 px).
  const tops = await menu.locator('a').evaluateAll((links) => links.map((a) => Math.round(a.getBoundingClientRect().top)));
  expect(tops).toHaveLength(8);
  expect(new Set(tops).size).toBe(1);

  // A time filter is typed as every time is written, not in the locale's date picker.
  const from = p.getByLabel('Dead-lettered from');
  expect(await from.getAttribute('type')).toBe('text');
  expect(await from.getAttribute('placeholder')).toBe('YYYY-MM-DD HH:MM');
  await from.fill('2026-11-28 14:05');
  await p.getByRole('button', { name: 'Apply' }).click();
  await p.waitForURL(/since=2026-11-28(\+|%20)14%3A05/);

  // The audit trail: the replay of an earlier test in words, its code beside them.
  await menu.getByRole('link', { name: 'Audit trail' }).click();
  await p.getByRole('heading', { name: 'Audit trail', exact: true }).waitFor();
  expect(await menu.locator('a[aria-current="page"]').allInnerTexts()).toEqual(['Audit trail']);
  await p.locator('tbody tr').first().waitFor();
  const actions = await p.locator('tbody tr td:nth-child(3)').allInnerTexts();
  expect(actions.length).toBeGreaterThan(0);
  for (const action of actions) expect(action).toMatch(/^[a-z][a-z -]+[a-z]( [a-z-]+\.[a-z-]+)?$/i);
}, 90_000);

test('endpoint health says when the page read its figures, apart from the time of the circuit’s latest record', async () => {
  const p = await stack.page();
  await signInWithKey(p, stack.keyA);
  await p.getByRole('link', { name: 'Endpoint health' }).click();
  const read = p.getByTestId('read-at');
  const text = await read.innerText();
  const [, shown] = /^Read (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/.exec(text) ?? [];
  // Read just now (the browser and the test share the machine's zone).
  expect(Math.abs(Date.now() - new Date(shown!.replace(' ', 'T')).getTime())).toBeLessThan(60_000);
  expect(text).toMatch(/read again every 30 s while this page is on screen/);
  expect(await p.getByText(/ as of /).count()).toBe(0);
});

test('the event types page shows each status with the endpoints that receive it and its example callback as the partner gets it; an operator reaches it from the partner', async () => {
  const p = await stack.page();
  await signInWithKey(p, stack.keyA);
  await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Event types' }).click();
  await p.getByRole('heading', { name: 'Event types', exact: true }).waitFor();
  for (const status of ['POLICY_ISSUING', 'POLICY_ACTIVE', 'POLICY_CANCELLED']) {
    const section = p.getByRole('region', { name: new RegExp(`\\(${status}\\)$`) });
    expect(await section.innerText()).toMatch(/Received by main\./);
    const body = JSON.parse(await section.locator('pre.body').innerText()) as { policy_number?: string; status?: string };
    expect(body).toMatchObject({ policy_number: 'EXAMPLE-0001', status });
  }
  const headers = p.getByRole('region', { name: 'Headers of every callback' });
  expect(await headers.getByRole('row', { name: /^x-api-key/i }).innerText()).toMatch(/\[redacted\]/);
  await screenshot(p, 'event-types');

  const o = await stack.page();
  await stack.signInAsOperator(o);
  await o.goto(`/console/#/partners/${stack.partnerA}`);
  await o.getByRole('link', { name: 'Its event types and example callbacks' }).click();
  await o.getByRole('region', { name: /\(POLICY_ACTIVE\)$/ }).waitFor();
  expect(await o.getByRole('link', { name: 'Send a test event' }).count()).toBe(0);
}, 120_000);
