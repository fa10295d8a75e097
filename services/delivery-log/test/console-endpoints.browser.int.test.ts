/**
 * A partner's self-service in the console, in a real Chromium against the real pipeline (Kafka,
 * the consumer, the sender, the delivery log; support/console-stack.ts): signed in with its API key,
 * it adds an endpoint whose URL the SSRF guard refuses (the error beside the URL, focused), then a
 * good one receiving only cancellations, and a cancellation reaches it while an activation does
 * not (its first endpoint gets both); it rotates its Standard Webhooks secret with an overlap it
 * chooses (6 hours, ending 6 hours after), and a callback sent during the overlap verifies with the official `standardwebhooks` verifier under BOTH the old and
 * the new secret; it names and describes an endpoint, and the list, the Edit form's heading and
 * Deliveries show the name. Screenshots of docs/console.md are taken here.
 */
import { Webhook } from 'standardwebhooks';
import { screenshot } from '../../../test/helpers/browser';
import { policyEvent, type Receiver } from '../../../test/helpers/outbound';
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { waitFor } from '../../../test/helpers/infrastructure';
import { ConsoleStack } from './support/console-stack';

const OLD_SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const partner = uniquePartnerId('console-sw');
let stack: ConsoleStack;
let main: Receiver;
let cancellations: Receiver;
let key: string;

beforeAll(async () => {
  stack = await ConsoleStack.open('console-endpoints', [['B', 'P-SW-OTHER']]);
  main = await stack.fixture.receiver(() => 200);
  cancellations = await stack.fixture.receiver(() => 200);
  key = await stack.fixture.partners.create(partner, {
    callback_endpoints: [{ endpoint_id: 'main', url: main.url }],
    outbound_auth: { method: 'STANDARD_WEBHOOKS', secret: OLD_SECRET },
  });
}, 180_000);

afterEach(() => stack.assertPagesClean());

afterAll(() => stack?.close());

const received = (receiver: Receiver, policy: string) => receiver.requests.filter((r) => r.body['policy_number'] === policy);

async function signedIn() {
  const p = await stack.page();
  await p.goto('/console/');
  await p.getByLabel('API key', { exact: true }).fill(key);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  return p;
}

test('an endpoint refused by the SSRF guard shows its error beside the URL; a good one with a status filter gets only that status', async () => {
  const p = await signedIn();
  await p.getByRole('link', { name: 'Endpoints' }).click();
  await p.getByRole('heading', { name: 'Endpoints', exact: true }).waitFor();
  await p.locator('tbody tr', { hasText: 'main' }).waitFor();

  const form = p.getByRole('form', { name: 'Add an endpoint' });
  const url = form.getByLabel('URL');
  await url.fill('http://10.20.30.40/callbacks');
  await form.getByRole('button', { name: 'Add endpoint' }).click();
  const beside = form.locator('#error-url');
  await beside.waitFor();
  expect(await beside.innerText()).toMatch(/refused by the SSRF guard: 10\.20\.30\.40 is a private address/);
  expect(await url.getAttribute('aria-invalid')).toBe('true');
  expect(await url.getAttribute('aria-describedby')).toBe('error-url');
  // The field at fault has the focus, so the partner is where the problem is.
  expect(await url.evaluate((input) => input === (input.ownerDocument as { activeElement: unknown }).activeElement)).toBe(true);
  await screenshot(p, 'endpoints-refused');
  stack.expectProblems(/status of 400/);

  await url.fill(cancellations.url);
  await form.getByLabel('cancelled').check();
  const adding = form.getByRole('button', { name: /Add endpoint|Adding…/ });
  await adding.click();
  await p
    .getByRole('status')
    .getByText(/Endpoint ep-[0-9a-f]{8} added\./)
    .waitFor();
  const row = p.locator('tbody tr', { hasText: cancellations.url });
  await row.getByText('cancelled').waitFor();
  expect(await p.locator('tbody tr').count()).toBe(2);
  await screenshot(p, 'endpoints');

  // What the consumer fans out by: the new endpoint wants cancellations only.
  await stack.fixture.events.publish([
    policyEvent(partner, {}, { policy_number: 'P-SW-ACTIVE', status: 'POLICY_ACTIVE' }),
    policyEvent(partner, {}, { policy_number: 'P-SW-CANCEL', status: 'POLICY_CANCELLED' }),
  ]);
  await waitFor(
    () => (received(main, 'P-SW-ACTIVE').length > 0 && received(main, 'P-SW-CANCEL').length > 0) || undefined,
    'both statuses at the first endpoint',
    60_000,
  );
  await waitFor(() => received(cancellations, 'P-SW-CANCEL').length > 0 || undefined, 'the cancellation at the filtered endpoint', 60_000);
  // Both events were fanned out by now (each at the first endpoint); the activation never reached the filtered one.
  expect(received(cancellations, 'P-SW-ACTIVE')).toHaveLength(0);
}, 150_000);

test('a rotated Standard Webhooks secret: during the overlap a callback verifies with the official verifier under the old and the new secret', async () => {
  const p = await signedIn();
  await p.getByRole('link', { name: 'Signing secret' }).click();
  await p.getByRole('heading', { name: 'Signing secret' }).waitFor();
  await p.getByText('STANDARD_WEBHOOKS').waitFor();
  // The partner's overlap: 24 hours preselected, 6 chosen; the confirmation says the length chosen.
  const overlap = p.getByLabel('Overlap');
  expect(await overlap.inputValue()).toBe('24');
  await overlap.selectOption({ label: '6 hours' });
  await p.getByRole('button', { name: 'Rotate signing secret' }).click();
  const confirm = p.getByRole('dialog', { name: 'Rotate your signing secret?' });
  await confirm.getByText(/For 6 hours, every callback .*webhook-signature lists both/).waitFor();
  const before = Date.now();
  await confirm.getByRole('button', { name: 'Rotate now' }).click();
  const shown = p.getByLabel('New signing secret');
  await shown.waitFor();
  const secret = await shown.inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(secret).not.toBe(OLD_SECRET);
  // When the overlap ends, with its zone.
  await p.getByText(/Until .* callbacks carry signatures with both the new and the previous secret/).waitFor();
  await p.getByText('Previous secret also signs until').waitFor();
  // The overlap's end, as the API reads it (the partner record the sender signs from): 6 hours after the click.
  const until = await p.evaluate(async () => {
    const answer = (await (await fetch('/api/portal/v1/signing-secret')).json()) as { data: { previous_secret_until: string } };
    return Date.parse(answer.data.previous_secret_until);
  });
  expect(until).toBeGreaterThanOrEqual(before + 6 * 3_600_000);
  expect(until).toBeLessThanOrEqual(Date.now() + 6 * 3_600_000);
  await screenshot(p, 'signing-secret');

  await stack.fixture.events.publish([policyEvent(partner, {}, { policy_number: 'P-SW-ROTATED', status: 'POLICY_ACTIVE' })]);
  const callback = await waitFor(() => received(main, 'P-SW-ROTATED')[0], 'a callback signed after the rotation', 60_000);
  const headers = Object.fromEntries(Object.entries(callback.headers).map(([name, value]) => [name, String(value)]));
  expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
  const body = callback.raw.toString('utf8');
  expect(new Webhook(secret).verify(body, headers)).toMatchObject({ policy_number: 'P-SW-ROTATED' });
  expect(new Webhook(OLD_SECRET).verify(body, headers)).toMatchObject({ policy_number: 'P-SW-ROTATED' });
  // A secret that is neither is refused: the verifier checks what it is given.
  expect(() => new Webhook(`whsec_${Buffer.alloc(32, 6).toString('base64')}`).verify(body, headers)).toThrow(/No matching signature/);
}, 120_000);

test('an endpoint named and described: the list shows the name beside the id, the Edit form says which endpoint it edits, Deliveries name it', async () => {
  const p = await signedIn();
  await p.getByRole('link', { name: 'Endpoints' }).click();
  await p.locator('tbody tr', { hasText: main.url }).getByRole('button', { name: 'Edit' }).click();
  const edit = p.getByRole('form', { name: 'Edit endpoint main' });
  await edit.getByRole('heading', { name: 'Editing endpoint main' }).waitFor();
  await edit.getByLabel(/^Name/).fill('Policy admin system');
  await edit.getByLabel(/^Description/).fill('Every status, for the policy admin system');
  await edit.getByRole('button', { name: 'Save endpoint' }).click();
  await p.getByRole('status').getByText('Endpoint Policy admin system (main) saved.').waitFor();
  const row = p.locator('tbody tr', { hasText: 'Policy admin system' });
  await row.getByText('Every status, for the policy admin system').waitFor();
  expect(await row.locator('code').innerText()).toBe('main');
  await row.getByRole('button', { name: 'Edit' }).click();
  await p.getByRole('heading', { name: 'Editing endpoint Policy admin system (main)' }).waitFor();
  await screenshot(p, 'endpoint-named');

  // Deliveries keep the id they were planned for; the page shows the endpoint's name now beside it.
  await p.getByRole('link', { name: 'Deliveries' }).click();
  await p.getByRole('cell', { name: 'Policy admin system (main)' }).first().waitFor();
});

test('opened with a portal link, the Endpoints and Signing secret pages show but offer no change', async () => {
  const { data } = await stack.api<{ data: { token: string } }>('POST', `/api/admin/v1/partners/${partner}/portal-tokens`, {
    reason: 'console test',
  });
  const p = await stack.page();
  await p.goto(`/console/#/portal?token=${encodeURIComponent(data.token)}`);
  await p.getByRole('heading', { name: 'Deliveries' }).waitFor();
  await p.getByRole('link', { name: 'Endpoints' }).click();
  await p.getByText(/Opened with a portal link, the console shows your endpoints but changes none/).waitFor();
  await p.locator('tbody tr', { hasText: 'main' }).waitFor();
  expect(await p.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
  expect(await p.getByRole('button', { name: 'Delete' }).count()).toBe(0);
  await p.getByRole('link', { name: 'Signing secret' }).click();
  await p.getByText(/cannot rotate your secret: sign in with your API key/).waitFor();
  expect(await p.getByRole('button', { name: 'Rotate signing secret' }).count()).toBe(0);
});

test("an operator turns the partner's self-service off on its page (confirmed): the partner's Endpoints page then offers no change", async () => {
  const operator = await stack.page();
  await stack.signInAsOperator(operator);
  await operator.goto(`/console/#/partners/${partner}`);
  const section = operator.getByRole('region', { name: 'Self-service' });
  await section.getByLabel('Reason (for the audit trail)').fill('contract review, ticket 12');
  await section.getByRole('button', { name: 'Turn self-service off' }).click();
  const confirm = operator.getByRole('dialog', { name: 'Turn the partner’s self-service off?' });
  await confirm.getByRole('button', { name: 'Turn off' }).click();
  // The page shows the partner as the change left it.
  await section.getByRole('button', { name: 'Turn self-service on' }).waitFor();
  await operator.getByText('Self-service', { exact: true }).first().waitFor();
  await screenshot(operator, 'partner-self-service');

  const p = await signedIn();
  await p.getByRole('link', { name: 'Endpoints' }).click();
  await p.getByText(/The insurer turned self-service off for you/).waitFor();
  expect(await p.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
  expect(await p.getByRole('button', { name: 'Delete' }).count()).toBe(0);
  // The trail is the log's projection of admin-audit: read once it has it.
  const trail = await waitFor(
    async () =>
      (
        await stack.api<{ data: Array<{ actor_type: string; reason: string }> }>(
          'GET',
          `/api/admin/v1/audit?subject_id=${partner}&action=partner.self-service-off`,
        )
      ).data[0],
    'the switch in the audit trail',
    30_000,
  );
  expect(trail).toMatchObject({ actor_type: 'operator', reason: 'contract review, ticket 12' });
}, 90_000);
