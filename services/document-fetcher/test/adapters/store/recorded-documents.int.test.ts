import { createLogger } from '@hookstream/runtime';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../../test/helpers/state-database';
import { RecordedDocuments, recordIdentity } from '../../../src/adapters/store/recorded-documents';

/** The table of recorded documents on a real PostgreSQL: what the feed and the recorder write, what retention deletes. */
let db: StateDatabase;
let recorded: RecordedDocuments;
beforeEach(async () => {
  db = await freshStateDatabase();
  recorded = new RecordedDocuments({
    url: db.url,
    namespace: '',
    maxConnections: 2,
    logger: createLogger({ service: 'test', level: 'silent' }),
    topic: 't.partner-documents',
  });
  await recorded.open();
}, 30_000);
afterEach(async () => {
  await recorded.close();
  await db.drop();
});
afterAll(() => stopStateServer());

test('when batches are applied out of order, then every identity is there once and the applied offset never goes back', async () => {
  const now = Date.now();
  await recorded.apply(
    0,
    [
      { documentId: 'a', replay: 0, seenAt: now },
      { documentId: 'b', replay: 0, seenAt: now },
    ],
    12n,
  );
  // The same records read again after a rebalance, from an earlier offset.
  await recorded.apply(0, [{ documentId: 'a', replay: 0, seenAt: now }], 5n);
  await recorded.apply(1, [{ documentId: 'a', replay: 1, seenAt: now }], 3n);
  // The recorder notes what it committed; the feed meets it later: nothing happens.
  await recorded.add([{ documentId: 'c', replay: 0 }]);

  expect(await recorded.appliedOffsets()).toEqual(
    new Map([
      [0, 12n],
      [1, 3n],
    ]),
  );
  const asked = ['a#0', 'a#1', 'a#2', 'b#0', 'c#0', 'd#0'].map((s) => ({ documentId: s.split('#')[0]!, replay: Number(s.split('#')[1]) }));
  expect([...(await recorded.recordedAmong(asked))].sort()).toEqual(['a#0', 'a#1', 'b#0', 'c#0']);
  expect(await recorded.has('a', 2)).toBe(false);
  expect(recordIdentity('a', 1)).toBe('a#1');
});

test('when identities are older than the window, then retention deletes them in bounded batches and keeps the rest', async () => {
  const now = Date.now();
  const old = Array.from({ length: 7 }, (_, i) => ({ documentId: `old-${i}`, replay: 0, seenAt: now - 3 * 3600_000 }));
  await recorded.apply(0, [...old, { documentId: 'new', replay: 0, seenAt: now }], 8n);

  await expect(recorded.sweep(now - 3600_000, 3)).resolves.toBe(7);

  expect([...(await recorded.recordedAmong([...old, { documentId: 'new', replay: 0 }]))]).toEqual(['new#0']);
  // The applied offsets stay: the topic's prefix below them was applied, whatever retention removed since.
  expect(await recorded.appliedOffsets()).toEqual(new Map([[0, 8n]]));
});
