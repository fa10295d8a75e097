import net from 'node:net';
import { Client } from 'pg';
import { AvroCodec, defaultSchemasDir } from '@hookstream/kafka';
import { StoreUnavailableError } from '@hookstream/errors';
import { createLogger } from '@hookstream/runtime';
import { type PartnerDocumentValue } from '@hookstream/contract';
import { testInfrastructure, waitFor } from '../../../../../test/helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../../test/helpers/state-database';
import { AppliedWait } from '../../../src/adapters/kafka/applied-wait';
import { DocumentRecorder } from '../../../src/adapters/kafka/document-recorder';
import { RecordedFeed } from '../../../src/entry/kafka/recorded-feed';
import { RecordedDocuments } from '../../../src/adapters/store/recorded-documents';
import { DocumentsFixture, settledAt } from '../../support/documents-fixture';

/**
 * The recorder over real Kafka and real PostgreSQL: replicas share one database and one topic;
 * a lane's transactional id fences its other holders, and the table of recorded documents, fed
 * from the topic, says what is recorded. Each test has a database, a feed group and lanes of its own.
 */
let fixture: DocumentsFixture;
let codec: AvroCodec;
let topic: string;
const databases: StateDatabase[] = [];
const logger = createLogger({ service: 'test', level: 'silent' });
beforeAll(async () => {
  fixture = await DocumentsFixture.open('document-recorder');
  topic = `${fixture.prefix}partner-documents`;
  codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  await codec.registerTopics([{ topic, schemaFile: 'partner-document.avsc' }]);
}, 60_000);
afterAll(async () => {
  await Promise.all(databases.map((db) => db.drop()));
  await stopStateServer();
  await fixture?.close();
});

async function database(): Promise<StateDatabase> {
  const db = await freshStateDatabase();
  databases.push(db);
  return db;
}

/** One replica's recorder: its store, its feed (started unless told), its wait; `test` names the feed group and the lanes. */
async function replica(url: string, test: string, startFeed = true) {
  const recorded = new RecordedDocuments({ namespace: '', url, maxConnections: 4, logger, topic });
  await recorded.open();
  const session = { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500 };
  const feed = new RecordedFeed({
    kafka: fixture.kafka,
    logger,
    recorded,
    topic,
    groupId: `${fixture.prefix}${test}-recorded`,
    session,
    windowMs: 3600_000,
  });
  const applied = new AppliedWait({ kafka: fixture.kafka, recorded, topic });
  const recorder = new DocumentRecorder({
    kafka: fixture.kafka,
    logger,
    recorded,
    caughtUp: (timeoutMs) => applied.caughtUp(timeoutMs),
    transactionalIdPrefix: `${fixture.prefix}${test}`,
  });
  if (startFeed) await feed.start();
  const stop = async () => {
    await recorder.stop();
    await feed.stop();
    await applied.stop();
    await recorded.close();
  };
  return { recorded, feed, recorder, stop };
}

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

async function write(documentId: string) {
  return {
    documentId,
    replay: 0,
    messages: [{ topic, message: { key: documentId, value: await codec.encode(topic, value(documentId)) } }],
  };
}

/** Writes a document's record under a lane's transactional id outside any recorder (as a replica killed before noting it), then commits or aborts. */
async function writeOutside(transactionalId: string, documentId: string, outcome: 'commit' | 'abort'): Promise<void> {
  const producer = fixture.kafka.producer({ transactionalId });
  await producer.connect();
  try {
    const transaction = await producer.transaction();
    await transaction.sendBatch({ topicMessages: [{ topic, messages: (await write(documentId)).messages.map((m) => m.message) }] });
    await (outcome === 'commit' ? transaction.commit() : transaction.abort());
  } finally {
    await producer.disconnect();
  }
}

/** How many committed records of each of `ids` partner-documents holds, once the count has settled. */
async function recordsOf(ids: string[]): Promise<Map<string, number>> {
  const mine = (records: Array<{ key: string | null }>) => records.filter((r) => r.key !== null && ids.includes(r.key));
  const records = await fixture.readDocuments(settledAt((r) => mine(r).length, ids.length, 2_000));
  const counts = new Map<string, number>();
  for (const record of mine(records)) counts.set(record.key!, (counts.get(record.key!) ?? 0) + 1);
  return counts;
}

test('when two replicas over one database record the same documents at once on the same lane, then each document is recorded exactly once', async () => {
  const db = await database();
  const replicas = await Promise.all([replica(db.url, 'two'), replica(db.url, 'two')]);
  const ids = Array.from({ length: 20 }, (_, i) => `two-${String(i).padStart(2, '0')}`);

  // Both record all twenty, interleaved, on lane 0; a fenced commit is tried again after the lane waits for the table.
  const results = await Promise.all(ids.flatMap((id) => replicas.map(async (r) => r.recorder.record(0, await write(id)))));

  expect([...(await recordsOf(ids)).values()]).toEqual(ids.map(() => 1));
  expect(results.filter(Boolean)).toHaveLength(ids.length);
  expect((await replicas[0].recorded.recordedAmong(ids.map((documentId) => ({ documentId, replay: 0 })))).size).toBe(ids.length);
  await Promise.all(replicas.map((r) => r.stop()));
}, 90_000);

test('when a record was committed on a lane but not yet fed into the table, then the lane opening waits for the feed and does not record it again', async () => {
  const db = await database();
  // A holder of lane 1 that committed and was killed before putting the identity in the table.
  await writeOutside(`${fixture.prefix}unfed-1`, 'unfed-x', 'commit');
  const r = await replica(db.url, 'unfed', false);
  const feedStart = 1_500;
  setTimeout(() => void r.feed.start(), feedStart);

  const started = Date.now();
  await expect(r.recorder.record(1, await write('unfed-x'))).resolves.toBe(false);

  expect(Date.now() - started).toBeGreaterThanOrEqual(feedStart);
  expect((await recordsOf(['unfed-x'])).get('unfed-x')).toBe(1);
  await r.stop();
}, 90_000);

test("when a lane's earlier transaction was aborted, then its records do not count and the document is recorded once", async () => {
  const db = await database();
  await writeOutside(`${fixture.prefix}aborted-2`, 'aborted-y', 'abort');
  const r = await replica(db.url, 'aborted');

  await expect(r.recorder.record(2, await write('aborted-y'))).resolves.toBe(true);
  await expect(r.recorder.record(2, await write('aborted-y'))).resolves.toBe(false);

  expect((await recordsOf(['aborted-y'])).get('aborted-y')).toBe(1);
  await r.stop();
}, 90_000);

test('when the store stops answering, then a commit fails retryably, and once it is back nothing is recorded twice', async () => {
  const db = await database();
  const target = new URL(db.url);
  const proxy = await TcpProxy.start(0, Number(target.port));
  const proxied = new URL(db.url);
  proxied.port = String(proxy.port);
  const r = await replica(proxied.toString(), 'down');
  await expect(r.recorder.record(3, await write('down-1'))).resolves.toBe(true);

  await proxy.stop();
  const refused = await r.recorder.record(3, await write('down-2')).catch((error: unknown) => error);
  const refusedAgain = await r.recorder.record(3, await write('down-1')).catch((error: unknown) => error);
  const back = await TcpProxy.start(proxy.port, Number(target.port));

  expect(refused).toBeInstanceOf(StoreUnavailableError);
  expect(refused).toMatchObject({ retryable: true });
  expect(refusedAgain).toBeInstanceOf(StoreUnavailableError);
  // The records are read again later: the one recorded before stays once, the other is recorded now.
  await expect(r.recorder.record(3, await write('down-1'))).resolves.toBe(false);
  await expect(r.recorder.record(3, await write('down-2'))).resolves.toBe(true);
  expect(Object.fromEntries(await recordsOf(['down-1', 'down-2']))).toEqual({ 'down-1': 1, 'down-2': 1 });
  await r.stop();
  await back.stop();
}, 90_000);

/** A plain TCP proxy to the PostgreSQL server: stopping it is the store going away (connections cut, new ones refused). */
class TcpProxy {
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly server: net.Server,
  ) {}

  static async start(port: number, targetPort: number): Promise<TcpProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: '127.0.0.1' }, resolve);
    });
    const proxy = new TcpProxy((server.address() as net.AddressInfo).port, server);
    server.on('connection', (client) => {
      const upstream = net.connect({ port: targetPort, host: '127.0.0.1' });
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => (proxy.sockets.delete(socket), client.destroy(), upstream.destroy()));
      }
      client.pipe(upstream).pipe(client);
    });
    return proxy;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

test("when the store is behind the feed group's offsets (restored from an older backup, even without an applied offset) or past the topic's end (the topic made again), then the feed reads from the store's position", async () => {
  const db = await database();
  const sql = new Client({ connectionString: db.url });
  await sql.connect();
  const recordedSoon = async (r: Awaited<ReturnType<typeof replica>>, what: string) =>
    waitFor(() => r.recorded.has('resume-1', 0), `the feed to apply resume-1 ${what}`, 30_000);
  try {
    await writeOutside(`${fixture.prefix}resume-4`, 'resume-1', 'commit');
    let r = await replica(db.url, 'resume');
    await recordedSoon(r, 'at first');
    await r.stop();

    // An older backup: neither the identity nor the applied offsets that covered it; the group's committed offsets are past it.
    await sql.query(`delete from recorded_documents where document_id = 'resume-1'`);
    await sql.query(`update recorded_document_offsets set applied = 0`);
    r = await replica(db.url, 'resume');
    await recordedSoon(r, 'again after the store went back');
    await r.stop();

    // An older backup still: no applied offset at all for a partition (made before the feed read it); the group's offsets are past it.
    await sql.query(`delete from recorded_documents where document_id = 'resume-1'`);
    await sql.query(`delete from recorded_document_offsets`);
    r = await replica(db.url, 'resume');
    await recordedSoon(r, 'again from the partition start, with no applied offset');
    await r.stop();

    // Applied offsets past every partition's end: the wait after a fence would take them for caught up.
    await sql.query(`delete from recorded_documents where document_id = 'resume-1'`);
    await sql.query(`update recorded_document_offsets set applied = 1000000000`);
    r = await replica(db.url, 'resume');
    await recordedSoon(r, 'again after its offsets were past the end');
    expect([...(await r.recorded.appliedOffsets()).values()].filter((applied) => applied >= 1_000_000_000n)).toEqual([]);
    await r.stop();
  } finally {
    await sql.end();
  }
}, 120_000);
