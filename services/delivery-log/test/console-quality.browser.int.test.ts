/**
 * The console's manners, in a real Chromium against the real pipeline: the first Tab reaches a skip
 * link to the view; the page's icon is inline (no request for it, no 404 on a load); on a phone
 * (390×844) the deliveries are cards with nothing wider than the screen and a policy number on one
 * line; at 1280 px a partner's menu holds one line; a partner is disabled only once the operator confirms (Escape and Cancel leave it active,
 * focus back on the button), and its open session then says that the insurer disabled the account;
 * a key is revoked only once confirmed; the glossary explains a code the lists show. Screenshots of
 * docs/console.md are taken here.
 */
import type { Page } from 'playwright-core';
import { screenshot } from '../../../test/helpers/browser';
import { waitFor } from '../../../test/helpers/infrastructure';
import { ConsoleStack } from './support/console-stack';

const LONG_POLICY = 'POL-2026-0000123456789';

let stack: ConsoleStack;

beforeAll(async () => {
  stack = await ConsoleStack.open('console-quality', [
    ['B', LONG_POLICY],
    ['A', 'P-QUALITY-1'],
  ]);
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

/** What the focused element says (runs in the page: globalThis is its window). */
const focusedText = (p: Page) =>
  p.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent ?? '',
  );

test('the first Tab reaches "Skip to main content", which moves focus to the view; the page’s icon is inline, nothing answers 404', async () => {
  const p = await stack.page();
  await stack.signInAsOperator(p);
  const notFound: string[] = [];
  const requested: string[] = [];
  p.on('request', (request) => requested.push(request.url()));
  p.on('response', (response) => {
    if (response.status() === 404) notFound.push(response.url());
  });
  // A load of its own (a new fragment alone would not load the page), so focus starts at the page's start.
  await p.goto('/console/#/deliveries');
  await p.reload();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.keyboard.press('Tab');
  expect(await focusedText(p)).toBe('Skip to main content');
  await p.keyboard.press('Enter');
  await p.locator('#content h1:focus').getByText('Deliveries').waitFor();
  expect(p.url()).toContain('#/deliveries');

  // The icon is inline: the browser asks the server for none (no /favicon.ico, which would answer 404).
  const icon = await p.locator('link[rel="icon"]').getAttribute('href');
  expect(icon).toMatch(/^data:image\/svg\+xml,/);
  expect(requested.filter((url) => /favicon|\.ico$/.test(url))).toEqual([]);
  expect(notFound).toEqual([]);
});

test('a partner’s menu, its longest, holds one line at 1280 px on a row of its own (it wrapped beside the brand)', async () => {
  const p = await stack.page();
  await p.goto('/console/');
  await p.getByLabel('API key', { exact: true }).fill(stack.keyA);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  const tops = await p
    .getByRole('navigation', { name: 'Main' })
    .locator('a')
    .evaluateAll((links) => links.map((a) => Math.round(a.getBoundingClientRect().top)));
  expect(tops.length).toBeGreaterThanOrEqual(11);
  expect(new Set(tops).size).toBe(1);
});

test('on a phone the deliveries are cards: nothing wider than the screen, a policy number on one line', async () => {
  const p = await stack.page('phone');
  expect(p.viewportSize()).toEqual({ width: 390, height: 844 });
  await stack.signInAsOperator(p);
  const policy = p.getByRole('link', { name: LONG_POLICY });
  await policy.waitFor({ timeout: 60_000 });
  // Measured in the page (a string: the tests' TypeScript has no DOM types).
  const layout = await p.evaluate<{
    pageOverflow: number;
    listOverflow: number;
    policyLines: number;
    policyHeight: number;
    lineHeight: number;
  }>(`(() => {
    const link = [...document.querySelectorAll('td a')].find((a) => a.textContent === ${JSON.stringify(LONG_POLICY)});
    const wrap = document.querySelector('.table-wrap');
    return {
      pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      listOverflow: wrap.scrollWidth - wrap.clientWidth,
      policyLines: link.getClientRects().length,
      policyHeight: link.getBoundingClientRect().height,
      lineHeight: parseFloat(getComputedStyle(link).lineHeight) || 24,
    };
  })()`);
  expect(layout.pageOverflow).toBeLessThanOrEqual(0);
  expect(layout.listOverflow).toBeLessThanOrEqual(0);
  expect(layout.policyLines).toBe(1);
  expect(layout.policyHeight).toBeLessThan(layout.lineHeight * 1.5);
  await screenshot(p, 'deliveries-phone');
});

test('a code in a list links to its plain words in the glossary', async () => {
  await stack.deadLettered('P-QUALITY-1');
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/deliveries?partner_id=${stack.partnerA}`);
  await p.getByRole('link', { name: 'P-QUALITY-1' }).click();
  await p.getByRole('heading', { name: /Delivery of P-QUALITY-1/ }).waitFor();
  // The attempts say which try each was, and why it failed, in words.
  await p.locator('.timeline').getByText('retry 1').first().waitFor();
  await p.getByRole('link', { name: 'answered with an error status' }).first().click();
  await p.getByRole('heading', { name: 'Glossary' }).waitFor();
  const entry = p.locator('#error-class-HTTP_STATUS');
  await entry.getByText('answered with an error status').waitFor();
  expect(await entry.getAttribute('class')).toContain('asked');
  // A closed circuit is normal: explained so, not coloured as an alert.
  expect(await p.locator('#circuit-closed').innerText()).toContain('Normal');
  await screenshot(p, 'glossary');
});

test('disabling a partner is confirmed first (Escape and Cancel leave it active); its open session then says the insurer disabled it', async () => {
  // The operator's page first: the partner's, opened last, is the one whose refusal is expected (expectProblems).
  const p = await stack.page();
  const partner = await stack.page();
  await partner.goto('/console/');
  await partner.getByLabel('API key', { exact: true }).fill(stack.keyA);
  await partner.getByRole('button', { name: 'Sign in' }).click();
  await partner.getByRole('heading', { name: 'Deliveries' }).waitFor();

  await stack.signInAsOperator(p);
  await p.goto(`/console/#/partners/${stack.partnerA}`);
  await p.getByRole('heading', { name: new RegExp(stack.partnerA) }).waitFor();
  const status = async () => (await stack.api<{ data: { status: string } }>('GET', `/api/admin/v1/partners/${stack.partnerA}`)).data.status;
  const disable = p.getByRole('button', { name: 'Disable partner' });
  await p.getByLabel('Reason', { exact: true }).fill('contract ended (console test)');

  await disable.click();
  const dialog = p.getByRole('dialog', { name: /Disable .*\?/ });
  await dialog.waitFor();
  // Focus starts on Cancel; Escape cancels and gives the focus back to the button that asked.
  expect(await focusedText(p)).toBe('Cancel');
  await p.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  expect(await focusedText(p)).toBe('Disable partner');
  await disable.click();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await status()).toBe('ACTIVE');

  await disable.click();
  await dialog.waitFor();
  await screenshot(p, 'confirm-disable');
  await dialog.getByRole('button', { name: 'Disable partner' }).click();
  // The new state: enabled again only by its own button; the partner is disabled.
  await p.getByRole('button', { name: 'Enable partner' }).waitFor();
  expect(await status()).toBe('DISABLED');

  // The partner's page, at its next request, says why its session ended.
  await partner.getByRole('link', { name: 'Webhooks' }).click();
  await partner.getByText(/The insurer disabled your partner account/).waitFor();
  await partner.getByRole('button', { name: 'Sign in' }).waitFor();
  stack.expectProblems(/status of 401/);

  await waitFor(
    async () => (await stack.api('POST', `/api/admin/v1/partners/${stack.partnerA}/enable`, { reason: 'back (console test)' }), true),
    'partner A enabled again',
    10_000,
  );
});

test('revoking an API key is confirmed first: Cancel keeps it working, Revoke key refuses it', async () => {
  const rotated = await stack.api<{ data: { key_id: string; api_key: string } }>(
    'POST',
    `/api/admin/v1/partners/${stack.partnerA}/api-keys/rotate`,
    { reason: 'second key (console test)', overlap_hours: 24 },
  );
  const { key_id: keyId, api_key: apiKey } = rotated.data;
  const opens = async () => (await fetch(`${stack.log.url}/api/portal/v1/deliveries`, { headers: { 'x-api-key': apiKey } })).status;
  await waitFor(async () => ((await opens()) === 200 ? true : undefined), 'the new key opening the partner API', 15_000);

  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/partners/${stack.partnerA}`);
  const reason = p.getByLabel(`Why key ${keyId} is revoked (audited)`);
  await reason.fill('leaked in a log (console test)');
  const form = p.locator('form', { has: reason });
  const dialog = p.getByRole('dialog', { name: `Revoke API key ${keyId}?` });
  await form.getByRole('button', { name: 'Revoke key' }).click();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await opens()).toBe(200);

  await form.getByRole('button', { name: 'Revoke key' }).click();
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  // The new state: the key listed as revoked, with no form to revoke it again; the key refused.
  await p
    .locator('li', { hasText: keyId })
    .getByText(/— revoked \d{4}-/)
    .waitFor();
  expect(await reason.count()).toBe(0);
  await waitFor(async () => ((await opens()) === 401 ? true : undefined), 'the revoked key refused', 15_000);
});
