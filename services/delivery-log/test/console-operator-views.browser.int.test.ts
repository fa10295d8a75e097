/**
 * The console's views across partners in a real Chromium, against the real pipeline
 * (support/console-stack.ts, plus a partner D whose endpoint answers 500): an operator sees D's
 * endpoint among the failing ones (its last answer, its dead letters waiting), the view asking
 * again by itself; finds D by part of its name in the partner picker and its policies by a
 * lower-case prefix; replays two of partner A's dead letters chosen row by row (a dry run that
 * badges nothing as replayed, then a confirmed replay; those two rows then show as replayed, the
 * third not); D recovers its dead letters since a time (a dry run's count, then resent and
 * delivered); the audit trail shows times with their zone, opens a record's detail, and finds D's
 * recovery by the actor it shows. Screenshots of docs/console.md are taken here.
 */
import type { Page } from 'playwright-core';
import { policyEvent } from '../../../test/helpers/outbound';
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { screenshot } from '../../../test/helpers/browser';
import { waitFor } from '../../../test/helpers/infrastructure';
import { ConsoleStack } from './support/console-stack';

let stack: ConsoleStack;
const partnerD = uniquePartnerId('console-d');
const nameD = 'Dunmore Mutual Brokers';
let keyD: string;
/** Partner D's endpoint answers 500 until this holds. */
let fixedD = false;

beforeAll(async () => {
  stack = await ConsoleStack.open('console-views', [
    ['A', 'P-SEL-1'],
    ['A', 'P-SEL-2'],
    ['A', 'P-SEL-3'],
  ]);
  const receiver = await stack.fixture.receiver(() => (fixedD ? 200 : 500));
  keyD = await stack.fixture.partners.create(partnerD, {
    name: nameD,
    callback_endpoints: [{ endpoint_id: 'claims', url: receiver.url }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  await stack.fixture.events.publish(['P-FAIL-1', 'P-FAIL-2'].map((policy) => policyEvent(partnerD, {}, { policy_number: policy })));
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

/** The partner's deliveries in `state`, once there are `count`. */
const inState = (partnerId: string, state: string, count: number) =>
  waitFor(
    async () => {
      const page = await stack.api<{ data: Array<{ delivery_id: string; policy_number: string }> }>(
        'GET',
        `/api/admin/v1/deliveries?partner_id=${partnerId}&status=${state}`,
      );
      return page.data.length >= count ? page.data : undefined;
    },
    `${count} of ${partnerId}'s deliveries ${state}`,
    90_000,
  );

const failingEndpointsAnswer = (p: Page) =>
  p.waitForResponse((r) => r.url().includes('/api/admin/v1/failing-endpoints'), { timeout: 25_000 });

test("an operator sees partner D's endpoint answering 500 among the failing endpoints, and finds D by part of its name", async () => {
  await inState(partnerD, 'dead_lettered', 2);
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await Promise.all([failingEndpointsAnswer(p), p.getByRole('link', { name: 'Failing endpoints' }).click()]);
  const row = p.locator('tbody tr', { hasText: nameD });
  await row.waitFor();
  expect(await row.getByText('HTTP 500').count()).toBe(1);
  expect(await row.locator('td').nth(2).innerText()).toMatch(/^2\b/);
  // Partner B's endpoint answers 200: not failing.
  expect(await p.locator('tbody tr', { hasText: stack.partnerB }).count()).toBe(0);
  await screenshot(p, 'failing-endpoints');
  // It asks again by itself while on screen.
  await failingEndpointsAnswer(p);

  // Its link opens D's deliveries on that endpoint.
  await row.getByRole('link', { name: nameD }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  expect(p.url()).toContain(`partner_id=${partnerD}`);
  await p.getByRole('link', { name: 'P-FAIL-1' }).waitFor();

  // The partner picker: part of the name, in lower case, lists D; picking it puts its id in the filter.
  await p.getByRole('button', { name: 'Clear' }).click();
  const picker = p.getByRole('combobox', { name: 'Partner' });
  await picker.fill('dunmore');
  await p.getByRole('option', { name: new RegExp(nameD) }).click();
  expect(await picker.inputValue()).toBe(partnerD);
  // And a policy number by a lower-case prefix.
  await p.getByLabel('Policy number').fill('p-fail');
  await p.getByRole('button', { name: 'Apply' }).click();
  await p.getByRole('link', { name: 'P-FAIL-2' }).waitFor();
  expect(await p.locator('tbody tr').count()).toBe(2);
}, 150_000);

test("an operator replays two of A's dead letters chosen row by row: a dry run first, then a confirmed replay", async () => {
  await inState(stack.partnerA, 'dead_lettered', 3);
  stack.fixedPolicies.add('P-SEL-1');
  stack.fixedPolicies.add('P-SEL-2');
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/dead-letters?partner_id=${stack.partnerA}`);
  await p.getByText('3 selected in').waitFor();
  await p.getByLabel(/^Choose P-SEL-1 /).check();
  await p.getByLabel(/^Choose P-SEL-2 /).check();
  await p.getByRole('heading', { name: 'Replay the 2 chosen' }).waitFor();

  const dryRunSent = p.waitForRequest((r) => r.url().endsWith('/dead-letters/replay'));
  await p.getByRole('button', { name: 'Dry run' }).click();
  const dryRun = (await dryRunSent).postDataJSON() as { letters: string[]; dry_run: boolean };
  expect(dryRun.dry_run).toBe(true);
  expect(dryRun.letters).toHaveLength(2);
  await p.getByText('Would do: 2 replayed').waitFor();
  // Nothing is replayed yet, and nothing says so; the page names no command-line flag.
  expect(await p.locator('.decisions .badge', { hasText: /^would replay$/ }).count()).toBe(2);
  expect(await p.locator('.decisions .badge', { hasText: /^replayed$/ }).count()).toBe(0);
  expect(await p.locator('tbody tr').getByText('yes', { exact: true }).count()).toBe(0);
  expect(await p.getByText('--force').count()).toBe(0);

  await p.getByLabel('Reason (required, for the audit trail)').fill('A fixed two policies (console test)');
  await p.getByRole('button', { name: 'Replay 2' }).click();
  // Nothing is sent before it is confirmed.
  const dialog = p.getByRole('dialog', { name: 'Replay 2 dead letters?' });
  await dialog.getByText(/A fixed two policies \(console test\)/).waitFor();
  await screenshot(p, 'replay-selected');
  const replaySent = p.waitForRequest((r) => r.url().endsWith('/dead-letters/replay'));
  await dialog.getByRole('button', { name: 'Replay 2' }).click();
  expect((await replaySent).postDataJSON()).toEqual({
    topic: 'callback',
    letters: dryRun.letters,
    dry_run: false,
    reason: 'A fixed two policies (console test)',
  });
  await p.getByText(/Replayed: run/).waitFor();
  // The list is read again: the two rows are replayed, the third is not.
  const replayedOf = (policy: string) => p.locator('tbody tr', { hasText: policy }).locator('td').last();
  await waitFor(async () => ((await replayedOf('P-SEL-1').innerText()) === 'yes' ? true : undefined), 'P-SEL-1 shown replayed', 10_000);
  expect(await replayedOf('P-SEL-2').innerText()).toBe('yes');
  expect(await replayedOf('P-SEL-3').innerText()).toBe('no');
  const delivered = await inState(stack.partnerA, 'delivered', 2);
  expect(delivered.map((d) => d.policy_number).sort()).toEqual(['P-SEL-1', 'P-SEL-2']);
}, 180_000);

test('partner D recovers its dead letters since a time: the dry run counts them, the confirmed run resends them, and the audit shows it', async () => {
  await inState(partnerD, 'dead_lettered', 2);
  fixedD = true;
  const p = await stack.page();
  await p.goto('/console/');
  await p.getByLabel('API key', { exact: true }).fill(keyD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.getByRole('link', { name: 'Recover' }).click();
  await p.getByRole('heading', { name: 'Recover dead letters' }).waitFor();
  // Since an hour ago, on the partner's one endpoint.
  const hourAgo = new Date(Date.now() - 3600_000);
  const local = new Date(hourAgo.getTime() - hourAgo.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  await p.getByLabel(/^Dead-lettered since \(your time, /).fill(local);
  await p.getByLabel('Endpoint').selectOption('claims');
  await p.getByRole('button', { name: 'Dry run' }).click();
  await p.getByText(/^2 dead-lettered since .*: 2 would be resent now, 0 not\./).waitFor();
  await p.getByLabel('Reason (optional, for the audit trail)').fill('endpoint back (console test)');
  await p.getByRole('button', { name: 'Resend 2' }).click();
  const dialog = p.getByRole('dialog', { name: 'Resend 2 deliveries?' });
  await dialog.getByText(/counts against your resends of the hour/).waitFor();
  await screenshot(p, 'recover');
  await dialog.getByRole('button', { name: 'Resend 2' }).click();
  await p.getByText(/^2 resent\./).waitFor();
  expect(await p.locator('.ok .badge', { hasText: 'resent' }).count()).toBe(2);
  const delivered = await inState(partnerD, 'delivered', 2);
  expect(delivered.map((d) => d.policy_number).sort()).toEqual(['P-FAIL-1', 'P-FAIL-2']);

  // The operator finds the recovery in the audit trail by the actor it shows.
  const o = await stack.page();
  await stack.signInAsOperator(o);
  const auditAnswer = () => o.waitForResponse((r) => r.url().includes('/api/admin/v1/audit'));
  await Promise.all([auditAnswer(), o.goto(`/console/#/audit?actor_id=${encodeURIComponent(`partner:${partnerD}`)}`)]);
  const record = o.locator('tbody tr', { hasText: 'endpoint back (console test)' });
  await waitFor(
    async () => {
      if ((await record.count()) > 0) return true;
      // Reloaded until the projection has the run; each reload waits for its own answer (none is cut short).
      await Promise.all([auditAnswer(), o.reload()]);
      await o.getByRole('heading', { name: 'Audit trail' }).waitFor();
      return (await record.count()) > 0 || undefined;
    },
    'the recovery in the audit trail',
    30_000,
  );
  expect(await record.locator('td').first().innerText()).toMatch(/UTC|GMT/);
  await record.getByText(`partner:${partnerD}`).waitFor();
  await record.locator('summary').click();
  const detail = record.locator('pre');
  await detail.waitFor();
  expect(await detail.innerText()).toContain('"topic"');
  await screenshot(o, 'audit-detail');
}, 180_000);
