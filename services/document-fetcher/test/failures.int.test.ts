import type { PartnerDocumentValue } from '@hookstream/contract';
import { webhook, type RunningIngress } from '../../../test/helpers/ingress';
import type { ReadRecord, RunningService } from '../../../test/helpers/outbound';
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { runCli } from '../../../test/helpers/processes';
import { DocumentHost, bytes, documentBytes, hang, slowDrip, status, type Route } from './support/document-host';
import { DocumentsFixture, postAccepted, settledAt } from './support/documents-fixture';

/**
 * Every way a document can fail, end to end: each recorded with its reason, retried only where it
 * may pass, the fetcher alive throughout, and another partner's documents not held up.
 */
const SETTINGS = {
  DOCUMENT_TIMEOUT_MS: '1500',
  DOCUMENT_MAX_BYTES: '100000',
  DOCUMENT_RETRY_DELAYS_MS: '200,300,300,300',
  DOCUMENT_MAX_REDIRECTS: '3',
  FETCHER_PARTNER_CONCURRENCY: '2',
};
const TIERS = 4;

let fixture: DocumentsFixture;
let host: DocumentHost;
let ingress: RunningIngress;
let fetcher: RunningService;

beforeAll(async () => {
  [fixture, host] = await Promise.all([DocumentsFixture.open('document-failures'), DocumentHost.start()]);
  [ingress, fetcher] = await Promise.all([fixture.startIngress(), fixture.startFetcher(SETTINGS)]);
}, 180_000);

afterAll(async () => {
  await fixture?.close();
  await host?.close();
});

/** Chunks without a Content-Length, past the cap. */
const chunkedPastCap: Route = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/pdf' });
  for (let i = 0; i < 30; i++) response.write(documentBytes('chunk', 10_000));
  response.end();
};

/** Each case: its route, and what its record must say: outcome, reason, HTTP status, attempts. */
const CASES: Array<{ name: string; route: Route; expected: [string, string | null, number | null, number] }> = [
  { name: 'oversize-declared', route: bytes(documentBytes('big', 200_000)), expected: ['FAILED', 'TOO_LARGE', null, 1] },
  { name: 'oversize-chunked', route: chunkedPastCap, expected: ['FAILED', 'TOO_LARGE', null, 1] },
  { name: 'timeout', route: hang(), expected: ['FAILED', 'TIMEOUT', null, 1 + TIERS] },
  { name: 'not-found', route: status(404), expected: ['FAILED', 'HTTP_STATUS', 404, 1] },
  {
    name: 'flaky',
    route: (q, r, n) => (n === 0 ? status(500)(q, r, n) : bytes(documentBytes('flaky', 5_000))(q, r, n)),
    expected: ['STORED', null, null, 2],
  },
  { name: 'to-private', route: status(302, { location: 'http://10.0.0.1/doc.pdf' }), expected: ['FAILED', 'SSRF_REFUSED', null, 1] },
  {
    name: 'to-metadata',
    route: status(307, { location: 'http://169.254.169.254/latest/meta-data/' }),
    expected: ['FAILED', 'SSRF_REFUSED', null, 1],
  },
  { name: 'to-file', route: status(301, { location: 'file:///etc/passwd' }), expected: ['FAILED', 'UNSUPPORTED_SCHEME', null, 1] },
  { name: 'slow-drip', route: slowDrip(200), expected: ['FAILED', 'TIMEOUT', null, 1 + TIERS] },
];

test('when documents are oversize, hang, 404, 500 then 200, redirect to a private address or a file, or drip, then each is recorded with its reason, retried only where it may pass, and another partner goes on', async () => {
  const troubled = await fixture.partners.create(uniquePartnerId('troubled'));
  const healthy = await fixture.partners.create(uniquePartnerId('healthy'));
  const documents = CASES.map(({ name, route }) => ({ type: name, url: host.route(`/${name}`, route) }));
  const troubledWebhook = webhook({ documents });
  await postAccepted(ingress.webhookUrl, troubled, troubledWebhook);

  // While the troubled partner's two slots hang on its documents, the healthy partner's is retrieved:
  // its host is asked for it before the troubled partner's hanging documents have had their last attempt.
  const healthyDocument = documentBytes('healthy', 3_000);
  let troubledAttemptsWhenAsked: number[] | undefined;
  const healthyRoute: Route = (request, response, n) => {
    troubledAttemptsWhenAsked ??= [host.hitsOf('/timeout'), host.hitsOf('/slow-drip')];
    bytes(healthyDocument)(request, response, n);
  };
  const healthyWebhook = webhook({ documents: [{ type: 'POLICY_CERTIFICATE', url: host.route('/healthy', healthyRoute) }] });
  const postedAt = Date.now();
  await postAccepted(ingress.webhookUrl, healthy, healthyWebhook);
  const ofTransaction = (records: Array<ReadRecord<PartnerDocumentValue>>, webhookBody: Record<string, unknown>) =>
    records.filter((r) => r.value.transaction_number === webhookBody.transaction_number);
  const [healthyRecord] = ofTransaction(await fixture.readDocuments((r) => ofTransaction(r, healthyWebhook).length >= 1), healthyWebhook);
  expect(healthyRecord!.value.outcome).toBe('STORED');
  expect(healthyRecord!.value.fetched_at).toBeGreaterThanOrEqual(postedAt);
  expect(troubledAttemptsWhenAsked).toEqual([expect.any(Number), expect.any(Number)]);
  for (const attempts of troubledAttemptsWhenAsked!) expect(attempts).toBeLessThan(1 + TIERS);

  const records = ofTransaction(
    await fixture.readDocuments(
      settledAt((r) => ofTransaction(r, troubledWebhook).length, CASES.length),
      90_000,
    ),
    troubledWebhook,
  );
  expect(records).toHaveLength(CASES.length);
  const byType = new Map(records.map((r) => [r.value.document_type, r.value]));
  for (const { name, expected } of CASES) {
    const value = byType.get(name)!;
    expect([name, value.outcome, value.failure_reason, value.http_status, value.attempts]).toEqual([name, ...expected]);
    expect([name, host.hitsOf(`/${name}`)]).toEqual([name, expected[3]]);
    if (value.outcome === 'FAILED') expect(value.error).toBeTruthy();
  }

  // The healthy partner's document was stored before the troubled partner's hanging documents were given up on.
  for (const hung of ['timeout', 'slow-drip']) expect(byType.get(hung)!.fetched_at).toBeGreaterThan(healthyRecord!.value.fetched_at);

  // Only what failed every tier is dead-lettered, with its reason in Spring's header.
  const letters = await fixture.readDeadLetters<{ document_type: string }>(settledAt((r) => r.length, 2));
  expect(letters.map((l) => [l.value.document_type, l.headers?.['kafka_dlt-exception-fqcn']?.toString()]).sort()).toEqual([
    ['slow-drip', 'TIMEOUT'],
    ['timeout', 'TIMEOUT'],
  ]);

  // Once the host is back, replaying the dead letter retrieves the document again and records it once more, stored.
  const timedOut = byType.get('timeout')!;
  host.route('/timeout', bytes(documentBytes('back', 4_000)));
  const replayed = await runCli(
    ['dlq', 'replay', '--topic', 'documents', '--delivery-id', timedOut.document_id, '--reason', 'host back', '--yes'],
    { env: { ...process.env, TOPIC_PREFIX: fixture.prefix } },
  );
  expect([replayed.code, replayed.stderr]).toEqual([0, '']);
  const again = await fixture.readDocuments((r) => r.some((d) => d.key === timedOut.document_id && d.value.replay === 1));
  const afterReplay = again.filter((d) => d.key === timedOut.document_id).map((d) => [d.value.replay, d.value.outcome, d.value.attempts]);
  expect(afterReplay).toEqual([
    [0, 'FAILED', 1 + TIERS],
    [1, 'STORED', 1],
  ]);
  expect((await fetch(`${fetcher.url}/readyz`)).status).toBe(200);
  expect(fetcher.output()).not.toMatch(/"level":(50|60)/);
}, 120_000);
