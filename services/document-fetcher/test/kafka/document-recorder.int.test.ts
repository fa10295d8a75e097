import { AvroCodec, createLogger, defaultSchemasDir, type PartnerDocumentValue } from '@hookstream/shared';
import { testInfrastructure } from '../../../../test/helpers/infrastructure';
import { DocumentRecorder } from '../../src/kafka/document-recorder';
import { RecordedDocuments } from '../../src/kafka/recorded-documents';
import { DocumentsFixture, settledAt } from '../support/documents-fixture';

/**
 * Two replicas recording the same documents at the same moment (a partition moving between them, a
 * paused process coming back): the lane's transactional id fences one or the other, and each
 * document is recorded exactly once.
 */
let fixture: DocumentsFixture;
beforeAll(async () => {
  fixture = await DocumentsFixture.open('document-recorder');
}, 60_000);
afterAll(() => fixture?.close());

function value(documentId: string): PartnerDocumentValue {
  return {
    partner_id: 'acme',
    request_id: null,
    transaction_number: 'TX-1',
    transaction_type: 'POLICY',
    document_type: 'POLICY_CERTIFICATE',
    source_url: 'https://docs.acme.example/x.pdf',
    filename: null,
    outcome: 'STORED',
    storage_uri: 'file:///x',
    content_type: null,
    size_bytes: 1,
    sha256: 'a'.repeat(64),
    error: null,
    fetched_at: Date.now(),
    document_id: documentId,
    document_index: 0,
    failure_reason: null,
    http_status: null,
    attempts: 1,
    replay: 0,
  };
}

test('when two replicas record the same documents at once on the same lane, then each document is recorded exactly once', async () => {
  const topic = `${fixture.prefix}partner-documents`;
  const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  await codec.registerTopics([{ topic, schemaFile: 'partner-document.avsc' }]);
  const logger = createLogger({ service: 'test', level: 'silent' });
  const replicas = [0, 1].map(() => {
    const recorded = new RecordedDocuments({ kafka: fixture.kafka, logger, topic, windowMs: 3600_000 });
    return {
      recorded,
      recorder: new DocumentRecorder({ kafka: fixture.kafka, logger, recorded, transactionalIdPrefix: `${fixture.prefix}fetcher` }),
    };
  });
  await Promise.all(replicas.map((r) => r.recorded.start()));
  const ids = Array.from({ length: 20 }, (_, i) => `document-${String(i).padStart(2, '0')}`);
  const write = async (documentId: string) => ({
    documentId,
    replay: 0,
    messages: [{ topic, message: { key: documentId, value: await codec.encode(topic, value(documentId)) } }],
  });

  // Both replicas record all twenty, interleaved, on lane 0; a fenced commit is tried again after re-reading the topic.
  const results = await Promise.all(ids.flatMap((id) => replicas.map(async (r) => r.recorder.record(0, await write(id)))));

  const records = await fixture.readDocuments(settledAt((r) => r.length, ids.length, 2_000));
  expect(records.map((r) => r.key).sort()).toEqual([...ids].sort());
  expect(results.filter(Boolean)).toHaveLength(ids.length);
  await Promise.all(replicas.map(async (r) => (await r.recorder.stop(), await r.recorded.stop())));
}, 90_000);
