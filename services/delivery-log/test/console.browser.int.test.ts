/**
 * The console in a real Chromium against the real pipeline (Kafka, the services, the delivery log
 * on its embedded store): a partner opens its portal link, finds its dead-lettered delivery and
 * why, its endpoint is fixed, it resends and sees it delivered; another partner's delivery is out
 * of its reach by URL; an operator onboards a partner through the form (a bad field shows its
 * error beside it; the good one lands and `hookstream partners show` agrees), dry-runs and
 * replays a dead letter and finds the replay in the audit trail. No page logs an error or breaks
 * its Content-Security-Policy. The screenshots of docs/console.md are taken here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, policyEvent, startService, type RunningService } from '../../../test/helpers/outbound';
import { openBrowser, screenshot, type TestBrowser, type WatchedPage } from '../../../test/helpers/browser';
import { waitFor } from '../../../test/helpers/infrastructure';
import { runCli } from '../../../test/helpers/processes';

let fixture: OutboundFixture;
let log: RunningService;
let browser: TestBrowser;
let dataDir: string;
let operatorToken: string;
/** The partner's endpoint answers 503 until it is "fixed". */
let fixed = false;
const partnerA = uniquePartnerId('console-a');
const partnerB = uniquePartnerId('console-b');
const opened: WatchedPage[] = [];

const cli = async (...args: string[]) => {
  const result = await runCli(args, { env: { ...process.env, ...fixture.env, TOPIC_PREFIX: fixture.prefix } });
  if (result.code !== 0) throw new Error(`hookstream ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
};
const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${log.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as T;
};
const page = async (device: 'desktop' | 'phone' = 'desktop') => {
  const watched = await browser.newPage(log.url, device);
  opened.push(watched);
  return watched.page;
};
/** The dead-lettered delivery of `policyNumber` once the log has it. */
const deadLettered = async (policyNumber: string) =>
  waitFor(
    async () => {
      const page = await api<{ data: Array<{ delivery_id: string }> }>(
        'GET',
        `/api/admin/v1/deliveries?partner_id=${partnerA}&policy_number=${policyNumber}&status=dead_lettered`,
      );
      return page.data[0];
    },
    `${policyNumber} dead-lettered in the log`,
    90_000,
  );
/** Drops the page problems a test caused on purpose (a refusal the page shows), so that only unexpected ones fail it. */
const expectProblems = (pattern: RegExp) => {
  const watched = opened.at(-1)!;
  const unexpected = watched.problems.filter((problem) => !pattern.test(problem));
  expect(watched.problems.length).toBeGreaterThan(unexpected.length);
  watched.problems.splice(0, watched.problems.length, ...unexpected);
};

beforeAll(async () => {
  fixture = await OutboundFixture.open('console', { retryDelaysMs: retryTierDelays(50), breaker: { failures: 1000, openMs: 100 } });
  const broken = await fixture.receiver(() => (fixed ? 200 : 503));
  const fine = await fixture.receiver(() => 200);
  await fixture.onboard(partnerA, { endpoint_id: 'main', url: broken.url });
  await fixture.onboard(partnerB, { endpoint_id: 'main', url: fine.url });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-console-'));
  const [, started, , , , operator] = await Promise.all([
    fixture.startIngress(),
    startService(DELIVERY_LOG_ENTRY, fixture.prefix, { ...fixture.env, DELIVERY_LOG_DATA_DIR: dataDir, HTTP_PORT: '0' }),
    fixture.startConsumer(),
    fixture.startSender(),
    openBrowser().then((b) => (browser = b)),
    cli('operators', 'create', '--name', 'Olga Operator', '--role', 'operator', '--json'),
  ]);
  log = started;
  operatorToken = operator['token'] as string;
  await fixture.events.publish([
    policyEvent(partnerA, {}, { policy_number: 'P-CONSOLE-1' }),
    policyEvent(partnerA, {}, { policy_number: 'P-CONSOLE-2' }),
    policyEvent(partnerB, {}, { policy_number: 'P-OTHER-1' }),
  ]);
}, 180_000);

afterEach(() => {
  // Every page of the test: no console error, no CSP violation, no failed request.
  for (const watched of opened.splice(0)) watched.assertNoPageErrors();
});

afterAll(async () => {
  await browser?.close();
  await log?.stop();
  await fixture?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('a partner opens its portal link, sees why its callback failed, resends it once its endpoint is fixed, and sees it delivered', async () => {
  await deadLettered('P-CONSOLE-1');
  const { data } = await api<{ data: { token: string } }>('POST', `/api/admin/v1/partners/${partnerA}/portal-tokens`, {
    reason: 'console test',
  });
  const p = await page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(data.token)}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  expect(p.url()).not.toContain(data.token);
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
  expect(await verifying.getByText('[redacted]').count()).toBe(1);
  expect(await verifying.getByText('x-hookstream-delivery-id').count()).toBe(1);
  await screenshot(p, 'delivery');

  fixed = true;
  await p.getByLabel('Reason (for the audit trail)').fill('endpoint fixed (ticket 9)');
  await p.getByRole('button', { name: 'Resend' }).click();
  await p
    .getByRole('status')
    .getByText(/Queued/)
    .waitFor();
  // The page follows the delivery by itself until it is delivered.
  await p
    .getByRole('heading', { name: /Delivery of P-CONSOLE-1/ })
    .getByText('delivered')
    .waitFor({ timeout: 60_000 });
  expect(await timeline.locator('li').count()).toBe(11);
}, 180_000);

test("a partner cannot reach another partner's delivery by its URL", async () => {
  const other = await waitFor(
    async () => (await api<{ data: Array<{ delivery_id: string }> }>('GET', `/api/admin/v1/deliveries?partner_id=${partnerB}`)).data[0],
    "partner B's delivery",
    30_000,
  );
  const { data } = await api<{ data: { token: string } }>('POST', `/api/admin/v1/partners/${partnerA}/portal-tokens`, {
    reason: 'console test',
  });
  const p = await page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(data.token)}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.goto(`/console/#/deliveries/${other.delivery_id}`);
  await p
    .getByRole('alert')
    .getByText(/no delivery with that id/)
    .waitFor();
  expect(await p.getByText('P-OTHER-1').count()).toBe(0);
  // The page's own request was refused: the console shows the 404 it got.
  await p.getByText(/404 NOT_FOUND_ERR/).waitFor();
  expectProblems(/status of 404/);
});

test('an operator onboards a partner through the form: a bad field shows its error, the good one lands as the CLI shows it', async () => {
  const p = await page();
  await signInAsOperator(p);
  await p.getByRole('link', { name: 'Partners' }).click();
  await p.getByRole('link', { name: 'Onboard a partner' }).click();
  const partnerId = uniquePartnerId('console-new');
  await p.getByLabel('Name', { exact: true }).fill('Console Insurance Partner');
  await p.getByLabel('Partner id (optional: from the name)').fill(partnerId);
  await p.getByLabel('URL', { exact: true }).fill('gopher://partner.example/cb');
  await p.getByLabel('Method').selectOption('BEARER_STATIC');
  await p.getByLabel('Token (secret: write-only)').fill('outbound-token-123');
  await p.getByLabel('Reason (for the audit trail)').fill('onboarding ticket 12');
  await p.getByRole('button', { name: 'Onboard' }).click();
  const urlError = p.locator('[id="error-callback_endpoints[0].url"]');
  await urlError.waitFor();
  expect(await urlError.innerText()).toContain('must use http or https');
  expect(await p.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  await p.getByRole('heading', { name: 'Onboard a partner' }).scrollIntoViewIfNeeded();
  await screenshot(p, 'partner-form');
  expectProblems(/status of 400/);

  await p.getByLabel('URL', { exact: true }).fill('https://partner.example/cb');
  await p.getByRole('button', { name: 'Onboard' }).click();
  await p.getByText('Its first API key, shown only now').waitFor();
  const key = await p.getByLabel('API key').inputValue();
  expect(key).toMatch(/^hsk_/);
  const shown = await cli('partners', 'show', partnerId, '--json');
  expect(shown).toMatchObject({
    partner_id: partnerId,
    name: 'Console Insurance Partner',
    callback_endpoints: [{ url: 'https://partner.example/cb' }],
    outbound_auth: { method: 'BEARER_STATIC', token: '********' },
  });
}, 120_000);

test('an operator dry-runs, then replays a dead letter, and finds the replay in the audit trail', async () => {
  const second = await deadLettered('P-CONSOLE-2');
  fixed = true;
  const p = await page();
  await signInAsOperator(p);
  await p.goto(`/console/#/dead-letters?topic=callback&delivery_id=${second.delivery_id}`);
  await p.getByText('1 selected in').waitFor();
  await screenshot(p, 'dead-letters');
  await p.getByRole('button', { name: 'Dry run' }).click();
  await p.getByText('Would do: 1 replayed').waitFor();
  await p.getByLabel('Reason (required, for the audit trail)').fill('partner is back (console test)');
  await p.getByRole('button', { name: 'Replay 1' }).click();
  await p.getByText(/Replayed: run/).waitFor();
  // The list is read again after the replay: the dead letter is now marked replayed.
  await p.locator('tbody tr').getByText('yes', { exact: true }).waitFor();

  const auditAnswer = () => p.waitForResponse((r) => r.url().includes('/api/admin/v1/audit'));
  await Promise.all([auditAnswer(), p.getByRole('link', { name: 'Audit trail' }).first().click()]);
  await waitFor(
    async () => {
      // Reloaded until the projection has the run; each reload waits for its own answer (none is cut short).
      if ((await p.getByText('partner is back (console test)').count()) > 0) return true;
      await Promise.all([auditAnswer(), p.reload()]);
      await p.getByRole('heading', { name: 'Audit trail' }).waitFor();
      return (await p.getByText('partner is back (console test)').count()) > 0 || undefined;
    },
    'the replay in the audit trail',
    30_000,
  );
  await screenshot(p, 'audit');
  const delivered = await waitFor(
    async () => {
      const { data } = await api<{ data: { state: string } }>('GET', `/api/admin/v1/deliveries/${second.delivery_id}`);
      return data.state === 'delivered' || undefined;
    },
    'the replayed delivery delivered',
    60_000,
  );
  expect(delivered).toBe(true);
}, 180_000);

test('the sign-in page and the deliveries fit a phone', async () => {
  const p = await page('phone');
  await p.goto('/console/');
  await p.getByRole('button', { name: 'Sign in' }).waitFor();
  await screenshot(p, 'sign-in');
  await signInAsOperator(p, false);
  await p.getByRole('link', { name: 'P-CONSOLE-1' }).first().waitFor();
  // Nothing wider than the screen but the table's own scrolling box.
  // (Runs in the page: globalThis is its window.)
  const overflow = await p.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return root.documentElement.scrollWidth - root.documentElement.clientWidth;
  });
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(p, 'deliveries-phone');
});

async function signInAsOperator(p: Page, go = true): Promise<void> {
  if (go) await p.goto('/console/');
  await p.getByLabel('an operator (your operator token)').check();
  await p.getByLabel('Operator token', { exact: true }).fill(operatorToken);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
}
