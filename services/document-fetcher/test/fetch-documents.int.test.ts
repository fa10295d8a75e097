import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { AvroCodec, defaultSchemasDir } from '@hookstream/kafka';
import { type PartnerDocumentValue } from '@hookstream/contract';
import { testInfrastructure, waitFor } from '../../../test/helpers/infrastructure';
import { readPartnerEvents, webhook, type RunningIngress } from '../../../test/helpers/ingress';
import type { ReadRecord, RunningService } from '../../../test/helpers/outbound';
import { uniquePartnerId } from '../../../test/helpers/outbound-fixture';
import { startS3Proxy, type RunningS3Proxy } from '../../../test/helpers/s3proxy';
import { DocumentHost, bytes, documentBytes } from './support/document-host';
import { DocumentsFixture, metric, postAccepted, settledAt, sha256Of } from './support/documents-fixture';

/** A webhook's two documents retrieved, stored and recorded, in each store; and recorded once when the webhook is read twice. */
describe.each(['local', 's3'] as const)('with the %s store', (store) => {
  let fixture: DocumentsFixture;
  let host: DocumentHost;
  let s3: RunningS3Proxy | undefined;
  let dir: string;
  let ingress: RunningIngress;
  let fetcher: RunningService;
  let apiKey: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-documents-'));
    [fixture, host, s3] = await Promise.all([
      DocumentsFixture.open(`documents-${store}`),
      DocumentHost.start(),
      store === 's3' ? startS3Proxy() : undefined,
    ]);
    apiKey = await fixture.partners.create(uniquePartnerId('docs'));
    [ingress, fetcher] = await Promise.all([fixture.startIngress(), fixture.startFetcher(s3 ? s3.env : { DOCUMENT_STORAGE_DIR: dir })]);
  }, 180_000);

  afterAll(async () => {
    await fixture?.close();
    await Promise.all([host?.close(), s3?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** The stored copy's bytes, wherever the record says it is. */
  async function storedBytes(uri: string): Promise<Buffer> {
    if (uri.startsWith('file:')) return readFile(fileURLToPath(uri));
    const [, bucket, key] = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri)!;
    const object = await s3!.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  const ofTransaction = (records: Array<ReadRecord<PartnerDocumentValue>>, transaction: string) =>
    records.filter((r) => r.value.transaction_number === transaction);

  test('when a webhook links two documents, then both are stored with their SHA-256 and size and both records are on partner-documents', async () => {
    const schedule = documentBytes('schedule', 1_500);
    const certificate = documentBytes('certificate', 300_000);
    const body = webhook({
      documents: [
        { type: 'POLICY_SCHEDULE', url: host.route('/two/schedule.pdf', bytes(schedule)), filename: 'schedule.pdf' },
        { type: 'POLICY_CERTIFICATE', url: host.route('/two/certificate', bytes(certificate, 'image/png')) },
      ],
    });
    await postAccepted(ingress.webhookUrl, apiKey, body);

    const records = ofTransaction(
      await fixture.readDocuments((r) => ofTransaction(r, body.transaction_number as string).length >= 2),
      body.transaction_number as string,
    );
    const byIndex = records.map((r) => r.value).sort((a, b) => a.document_index - b.document_index);
    expect(byIndex.map((v) => [v.outcome, v.document_type, v.filename, v.sha256, v.size_bytes, v.content_type])).toEqual([
      ['STORED', 'POLICY_SCHEDULE', 'schedule.pdf', sha256Of(schedule), schedule.length, 'application/pdf'],
      ['STORED', 'POLICY_CERTIFICATE', null, sha256Of(certificate), certificate.length, 'image/png'],
    ]);
    expect(records.every((r) => r.key === r.value.document_id && r.value.attempts === 1 && r.value.error === null)).toBe(true);
    expect(byIndex.map((v) => v.storage_uri!.slice(0, store === 's3' ? 5 : 7))).toEqual(
      store === 's3' ? ['s3://', 's3://'] : ['file://', 'file://'],
    );
    expect(await storedBytes(byIndex[0]!.storage_uri!)).toEqual(schedule);
    expect(await storedBytes(byIndex[1]!.storage_uri!)).toEqual(certificate);
    expect(byIndex[0]!.storage_uri).toContain(sha256Of(schedule));
  });

  test('when the same partner event is on partner-events twice, then each of its documents is retrieved and recorded once', async () => {
    const document = documentBytes('twice', 2_000);
    const body = webhook({ documents: [{ type: 'CLAIM_DOCUMENTS', url: host.route('/twice.pdf', bytes(document)) }] });
    await postAccepted(ingress.webhookUrl, apiKey, body);
    const transaction = body.transaction_number as string;
    await fixture.readDocuments((r) => ofTransaction(r, transaction).length >= 1);

    // As the ingress may write it twice (a claim taken over: docs/inbound.md): the same record again.
    const event = (await readPartnerEvents(fixture.prefix)).find((e) => e.key === transaction)!;
    const topic = `${fixture.prefix}partner-events`;
    const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
    await codec.registerTopics([{ topic, schemaFile: 'partner-event.avsc' }]);
    const producer = fixture.kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: transaction, value: await codec.encode(topic, event.value) }] });
    await producer.disconnect();

    await waitFor(async () => (await metric(fetcher.url, 'hookstream_document_already_recorded_total')) >= 1, 'the duplicate to be read');
    const records = ofTransaction(await fixture.readDocuments(settledAt((r) => ofTransaction(r, transaction).length, 1)), transaction);
    expect(records).toHaveLength(1);
    expect(host.hitsOf('/twice.pdf')).toBe(1);
  });
});
