import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PartnerDocumentValue } from '@hookstream/contract';
import { webhook } from '../../../test/helpers/ingress';
import type { ReadRecord } from '../../../test/helpers/outbound';
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { DocumentHost, bytes, documentBytes } from './support/document-host';
import { DocumentsFixture, metric, postAccepted, settledAt, sha256Of } from './support/documents-fixture';

/** The fetcher killed mid-way (SIGKILL) and started again: every document recorded once, none lost, no half object. */
const WEBHOOKS = 30;
const PER_WEBHOOK = 2;

let fixture: DocumentsFixture;
let host: DocumentHost;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-documents-'));
  [fixture, host] = await Promise.all([DocumentsFixture.open('document-sigkill'), DocumentHost.start()]);
}, 120_000);

afterAll(async () => {
  await fixture?.close();
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every stored file under its content key, with the SHA-256 of what it holds. */
function storedFiles(): Array<{ name: string; sha256: string }> {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.parentPath.includes('.incoming'))
    .map((entry) => ({
      name: entry.name,
      sha256: createHash('sha256')
        .update(readFileSync(path.join(entry.parentPath, entry.name)))
        .digest('hex'),
    }));
}

test('when the fetcher is killed with SIGKILL mid-way and started again, then each document has exactly one record and is stored whole', async () => {
  const env = { DOCUMENT_STORAGE_DIR: dir, FETCHER_PARTNER_CONCURRENCY: '4' };
  const [ingress, first] = await Promise.all([fixture.startIngress(), fixture.startFetcher(env)]);
  const apiKey = await fixture.partners.create(uniquePartnerId('sigkill'));
  const bodies = new Map<string, Buffer>();
  const transactions = new Set<string>();
  for (let w = 0; w < WEBHOOKS; w++) {
    const documents = Array.from({ length: PER_WEBHOOK }, (_, d) => {
      const name = `/kill/${w}-${d}.pdf`;
      const body = documentBytes(`document ${w}-${d}`, 20_000 + w * 100 + d);
      bodies.set(sha256Of(body), body);
      // The very first document is slow: its record stays in flight, so its partition's committed offset stays
      // below later records already recorded, and the restarted fetcher reads those again.
      const delayMs = w === 0 && d === 0 ? 6_000 : 250;
      return { type: 'CLAIM_DOCUMENTS', url: host.route(name, bytes(body, 'application/pdf', delayMs)) };
    });
    const body = webhook({ documents });
    transactions.add(body.transaction_number as string);
    await postAccepted(ingress.webhookUrl, apiKey, body);
  }
  const ours = (records: Array<ReadRecord<PartnerDocumentValue>>) => records.filter((r) => transactions.has(r.value.transaction_number));

  // Act: kill it once some documents are recorded and many are not.
  const before = ours(await fixture.readDocuments((r) => ours(r).length >= 10));
  expect(before.length).toBeLessThan(WEBHOOKS * PER_WEBHOOK);
  await first.stop('SIGKILL');
  const second = await fixture.startFetcher(env);

  // Assert: one record per document, none lost, every one stored whole under its content key.
  const records = ours(
    await fixture.readDocuments(
      settledAt((r) => ours(r).length, WEBHOOKS * PER_WEBHOOK, 3_000),
      120_000,
    ),
  );
  expect(records).toHaveLength(WEBHOOKS * PER_WEBHOOK);
  expect(new Set(records.map((r) => r.key)).size).toBe(WEBHOOKS * PER_WEBHOOK);
  expect(records.every((r) => r.value.outcome === 'STORED' && bodies.get(r.value.sha256!)?.length === r.value.size_bytes)).toBe(true);
  expect(new Set(records.map((r) => r.value.sha256))).toEqual(new Set(bodies.keys()));
  // The restarted fetcher read records again whose documents were already recorded, and recorded none twice.
  expect(await metric(second.url, 'hookstream_document_already_recorded_total')).toBeGreaterThan(0);
  const files = storedFiles();
  expect(files.every((f) => f.name === f.sha256)).toBe(true);
  expect(new Set(files.map((f) => f.sha256))).toEqual(new Set(bodies.keys()));
}, 180_000);
