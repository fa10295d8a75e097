/**
 * The console in a real Chromium, as an operator sees it, against the real pipeline (Kafka, the
 * services, the delivery log on a PostgreSQL database of its own): it onboards a partner through the form (a
 * bad field shows its error beside it; the good one lands and `hookstream partners show` agrees;
 * it is changed twice in a row; its key is rotated), dry-runs and replays a dead letter (changed
 * filters drop the dry run; the replay replays what was dry-run) and finds the replay in the audit
 * trail; a filter being typed survives the list updating by itself; a session that ends brings back
 * the sign-in; a portal link issued on a partner's page is listed there and revoked. No page logs
 * an error or breaks its Content-Security-Policy. Screenshots of docs/console.md are taken here.
 */
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { policyEvent } from '../../../test/helpers/outbound';
import { screenshot } from '../../../test/helpers/browser';
import { waitFor } from '../../../test/helpers/infrastructure';
import { ConsoleStack, applyFilter } from './support/console-stack';

let stack: ConsoleStack;

beforeAll(async () => {
  stack = await ConsoleStack.open('console-operator', [['A', 'P-CONSOLE-2']]);
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

test('an operator onboards a partner through the form: a bad field shows its error, the good one lands as the CLI shows it', async () => {
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.getByRole('link', { name: 'Partners' }).click();
  await p.getByRole('link', { name: 'Onboard a partner' }).click();
  const partnerId = uniquePartnerId('console-new');
  await p.getByLabel('Name', { exact: true }).fill('Console Insurance Partner');
  // Left empty, the id is the name with a random suffix: the form says so before it happens.
  const idLabel = p.locator('label', { has: p.locator('input[name="partner_id"]') });
  expect(await idLabel.innerText()).toMatch(/random 4-character suffix, e\.g\. acme-insurance-3f9a/);
  await p.getByLabel(/^Partner id \(optional/).fill(partnerId);
  await p.getByLabel('URL', { exact: true }).fill('gopher://partner.example/cb');
  await p.getByLabel('Method').selectOption('BEARER_STATIC');
  await p.getByLabel('Token (secret: write-only)').fill('outbound-token-123');
  await p.getByLabel('Reason (for the audit trail)').fill('onboarding ticket 12');
  await p.getByRole('button', { name: 'Onboard' }).click();
  const urlError = p.locator('[id="error-callback_endpoints[0].url"]');
  await urlError.waitFor();
  expect(await urlError.innerText()).toContain('must use http or https');
  expect(await p.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  // The field at fault has the focus and is in view (not the button, with the error far above it).
  await p.locator('input[name="callback_endpoints[0].url"]:focus, [aria-invalid="true"]:focus').waitFor();
  expect(await p.evaluate<string | null>('document.activeElement.getAttribute("aria-invalid")')).toBe('true');
  expect(
    await p.evaluate<boolean>(
      '(() => { const r = document.activeElement.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; })()',
    ),
  ).toBe(true);
  await p.getByRole('heading', { name: 'Onboard a partner' }).scrollIntoViewIfNeeded();
  await screenshot(p, 'partner-form');
  stack.expectProblems(/status of 400/);

  await p.getByLabel('URL', { exact: true }).fill('https://partner.example/cb');
  await p.getByLabel('Name (optional)').fill('Claims system');
  await p.getByRole('button', { name: 'Onboard' }).click();
  await p.getByText('Its first API key, shown only now').waitFor();
  const key = await p.getByLabel('API key').inputValue();
  expect(key).toMatch(/^hsk_/);
  const shown = await stack.cli('partners', 'show', partnerId, '--json');
  expect(shown).toMatchObject({
    partner_id: partnerId,
    name: 'Console Insurance Partner',
    callback_endpoints: [{ url: 'https://partner.example/cb', name: 'Claims system', description: null }],
    outbound_auth: { method: 'BEARER_STATIC', token: '********' },
  });

  // Changed twice in a row: each save is made to the revision the one before answered (no 409).
  await p.goto(`/console/#/partners/${partnerId}/edit`);
  await p.getByRole('heading', { name: 'Change Console Insurance Partner', exact: true }).waitFor();
  for (const name of ['Console Insurance Partner (renamed)', 'Console Insurance Partner (renamed twice)']) {
    await p.getByLabel('Name', { exact: true }).fill(name);
    await p.getByLabel('Reason (for the audit trail)').fill(`ticket 13: ${name}`);
    const saved = p.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes(`/partners/${partnerId}`));
    await p.getByRole('button', { name: 'Save changes' }).click();
    expect((await saved).status()).toBe(200);
    await p.getByRole('heading', { name: `Change ${name}`, exact: true }).waitFor();
  }
  expect(await stack.cli('partners', 'show', partnerId, '--json')).toMatchObject({
    name: 'Console Insurance Partner (renamed twice)',
    status: 'ACTIVE',
    callback_endpoints: [{ endpoint_id: 'ep-1', url: 'https://partner.example/cb' }],
  });

  // Its key rotated for it as a leaked one (no overlap): the new one is shown once and opens the
  // partner API; the old one no longer does.
  await p.goto(`/console/#/partners/${partnerId}`);
  await p.getByLabel(/Why its inbound API key is rotated/).fill('key shared by mistake (ticket 14)');
  await p.getByLabel(/Its other keys keep working for/).fill('0');
  await p.getByRole('button', { name: 'Rotate its API key' }).click();
  // No overlap refuses the partner's webhooks until it has the new key: asked first.
  await p.getByRole('dialog').getByRole('button', { name: 'Rotate now, no overlap' }).click();
  const rotated = await p.getByLabel(/New API key .*, shown once/).inputValue();
  expect(rotated).toMatch(/^hsk_/);
  expect(rotated).not.toBe(key);
  const deliveriesWith = async (apiKey: string) =>
    (await fetch(`${stack.log.url}/api/portal/v1/deliveries`, { headers: { 'x-api-key': apiKey } })).status;
  await waitFor(async () => ((await deliveriesWith(rotated)) === 200 ? true : undefined), 'the new key opening the partner API', 15_000);
  await waitFor(async () => ((await deliveriesWith(key)) === 401 ? true : undefined), 'the old key refused', 15_000);
}, 120_000);

test('an operator dry-runs, then replays a dead letter, and finds the replay in the audit trail', async () => {
  const second = await stack.deadLettered('P-CONSOLE-2');
  stack.fixedPolicies.add('P-CONSOLE-2');
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/dead-letters?topic=callback&delivery_id=${second.delivery_id}`);
  await p.getByText('1 selected in').waitFor();
  await screenshot(p, 'dead-letters');
  await p.getByRole('button', { name: 'Dry run' }).click();
  await p.getByText('Would do: 1 replayed').waitFor();
  // Other filters drop the dry run: nothing is offered for replay that was not dry-run.
  await applyFilter(p, 'Policy number', 'P-NOT-THERE');
  await p.getByText('0 selected in').waitFor();
  expect(await p.getByText(/Would do/).count()).toBe(0);
  expect(await p.getByRole('button', { name: /^Replay/ }).count()).toBe(0);
  await applyFilter(p, 'Policy number', '');
  await p.getByText('1 selected in').waitFor();

  const dryRunSent = p.waitForRequest((r) => r.url().endsWith('/dead-letters/replay'));
  await p.getByRole('button', { name: 'Dry run' }).click();
  const { dry_run: dryRun, ...dryRunSelection } = (await dryRunSent).postDataJSON();
  expect(dryRun).toBe(true);
  await p.getByText('Would do: 1 replayed').waitFor();
  await p.getByLabel('Reason (required, for the audit trail)').fill('partner is back (console test)');
  const replaySent = p.waitForRequest((r) => r.url().endsWith('/dead-letters/replay'));
  await p.getByRole('button', { name: 'Replay 1' }).click();
  await p.getByRole('dialog', { name: 'Replay 1 dead letter?' }).getByRole('button', { name: 'Replay 1' }).click();
  // The replay is the dry run's own request, with its reason.
  expect((await replaySent).postDataJSON()).toEqual({ ...dryRunSelection, dry_run: false, reason: 'partner is back (console test)' });
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
      const { data } = await stack.api<{ data: { state: string } }>('GET', `/api/admin/v1/deliveries/${second.delivery_id}`);
      return data.state === 'delivered' || undefined;
    },
    'the replayed delivery delivered',
    60_000,
  );
  expect(delivered).toBe(true);
}, 180_000);

test('a filter being typed is kept while the list updates by itself', async () => {
  await stack.fixture.events.publish([policyEvent(stack.partnerC, {}, { policy_number: 'P-LIVE-1' })]);
  // In progress in the log first: only a list showing a delivery in progress updates by itself.
  await waitFor(
    async () => {
      const { data } = await stack.api<{ data: Array<{ state: string }> }>('GET', `/api/admin/v1/deliveries?partner_id=${stack.partnerC}`);
      return data.some((d) => d.state === 'pending' || d.state === 'failing') || undefined;
    },
    "partner C's delivery in progress",
    60_000,
  );
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/deliveries?partner_id=${stack.partnerC}`);
  await p.getByText('Updating while deliveries are in progress').waitFor();
  await p.getByLabel('Policy number').fill('P-TYPED');
  // Two answers of the list's polling (3 s apart), each re-rendering the view: the text typed stays.
  const polled = () => p.waitForResponse((r) => r.url().includes(`/api/admin/v1/deliveries?partner_id=${stack.partnerC}`));
  await polled();
  await polled();
  expect(await p.getByLabel('Policy number').inputValue()).toBe('P-TYPED');
  await p.getByRole('button', { name: 'Apply' }).click();
  await p.getByText('No deliveries match.').waitFor();
  expect(p.url()).toContain('policy_number=P-TYPED');
  expect(await p.getByLabel('Policy number').inputValue()).toBe('P-TYPED');
  stack.holding = false;
}, 120_000);

test('when the session ends while the page is open, the console asks to sign in again and returns to the view', async () => {
  const p = await stack.page();
  await stack.signInAsOperator(p);
  // The browser drops the cookie when the session expires; a revoked one is refused the same way (401).
  await p.context().clearCookies();
  await p.getByRole('link', { name: 'Audit trail' }).first().click();
  await p.getByText('Your session ended; sign in again.').waitFor();
  await p.waitForFunction("document.title === 'Sign in · Hookstream console'");
  await stack.signInAsOperator(p, false, 'Audit trail');
  // The view changed in place: its heading has the focus and names the document, as a page load would.
  await p.locator('h1:focus').getByText('Audit trail').waitFor();
  await p.waitForFunction("document.title === 'Audit trail · Hookstream console'");
  stack.expectProblems(/status of 401/);
});

test('an operator issues a portal link on the partner’s page, sees it listed, revokes it, and the link opens nothing', async () => {
  const p = await stack.page();
  await stack.signInAsOperator(p);
  await p.goto(`/console/#/partners/${stack.partnerA}`);
  await p.getByLabel(/Why the partner gets access/).fill('call with their engineer (ticket 15)');
  await p.getByRole('button', { name: 'Issue a portal link (24 h)' }).click();
  const link = await p.getByLabel('Portal link, shown once').inputValue();
  const token = decodeURIComponent(link.split('token=')[1]!);
  const deliveries = async () =>
    (await fetch(`${stack.log.url}/api/portal/v1/deliveries`, { headers: { authorization: `Bearer ${token}` } })).status;
  expect(await deliveries()).toBe(200);

  const reason = p.getByLabel(/Why portal link .* is revoked/);
  await reason.fill('sent to the wrong address');
  await p.getByRole('button', { name: 'Revoke', exact: true }).click();
  await p.getByRole('dialog').getByRole('button', { name: 'Revoke link' }).click();
  await p.getByText(/revoked .* sent to the wrong address/).waitFor();
  expect(await reason.count()).toBe(0);
  expect(await deliveries()).toBe(401);
});
