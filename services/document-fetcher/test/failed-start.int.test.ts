import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from '../../../test/helpers/infrastructure';
import { webhook, type RunningIngress } from '../../../test/helpers/ingress';
import { DOCUMENT_FETCHER_ENTRY, type RunningService } from '../../../test/helpers/outbound';
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { spawnService } from '../../../test/helpers/processes';
import { freshStateDatabase, type StateDatabase } from '../../../test/helpers/state-database';
import { TcpGate } from '../../../test/helpers/tcp-gate';
import { DocumentHost, bytes, documentBytes } from './support/document-host';
import { DocumentsFixture, postAccepted } from './support/documents-fixture';

/**
 * A document-fetcher whose first start fails (its PostgreSQL not reachable yet, as when a pod
 * starts before the database) starts again once it is, and then records documents. It used to
 * come up ready with its recorder stopped by the failed start: every record was refused, its
 * partition read again every second and each document retrieved again, for good (a replica under
 * load retrieved 68,752 documents in a few minutes and recorded none).
 */
let fixture: DocumentsFixture;
let host: DocumentHost;
let database: StateDatabase;
let gate: TcpGate;
let ingress: RunningIngress;
let fetcher: RunningService | undefined;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-failed-start-'));
  [fixture, host, database] = await Promise.all([DocumentsFixture.open('failed-start'), DocumentHost.start(), freshStateDatabase()]);
  gate = new TcpGate(Number(new URL(database.url).port));
  ingress = await fixture.startIngress();
}, 180_000);

afterAll(async () => {
  await fetcher?.stop();
  await fixture?.close();
  await Promise.all([host?.close(), gate?.close()]);
  await database?.drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

test('when the first start of the document consumer fails because PostgreSQL is away, then once it is back the fetcher starts and records each document once, retrieved once', async () => {
  // The gate takes a port, then refuses on it: the database the fetcher is given is away.
  await gate.open();
  await gate.close();
  const url = new URL(database.url);
  url.port = String(gate.port);
  fetcher = await spawnService(DOCUMENT_FETCHER_ENTRY, {
    ...process.env,
    ...{ TOPIC_PREFIX: fixture.prefix, LOG_LEVEL: 'info', SSRF_ALLOW: '127.0.0.0/8' },
    ...{ DATABASE_URL: url.toString(), DOCUMENT_STORAGE_DIR: dir },
  });
  await waitFor(() => fetcher!.output().includes('document-consumer not started yet'), 'a first start that fails', 60_000);
  await gate.open();
  await fetcher.untilReady(120_000);

  const apiKey = await fixture.partners.create(uniquePartnerId('failed-start'));
  const body = webhook({
    documents: [{ type: 'POLICY_SCHEDULE', url: host.route('/schedule.pdf', bytes(documentBytes('schedule', 2_000))) }],
  });
  await postAccepted(ingress.webhookUrl, apiKey, body);
  const records = await fixture.readDocuments((all) => all.some((r) => r.value.request_id === body.request_id));
  expect(records.filter((r) => r.value.request_id === body.request_id).map((r) => r.value.outcome)).toEqual(['STORED']);
  // Retrieved once: a refused record is not read again and again, each time retrieving its document.
  expect(host.hitsOf('/schedule.pdf')).toBe(1);
}, 240_000);
