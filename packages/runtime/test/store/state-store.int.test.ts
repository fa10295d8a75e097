import { sql, type Kysely } from 'kysely';
import { createLogger } from '../../src/logging';
import { openStateStore, type StateStore } from '../../src/store/state-store';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';

interface Tables {
  notes: { text: string };
}

const migrations = {
  '0001-notes': { up: (db: Kysely<unknown>) => sql`create table notes (text text not null)`.execute(db).then(() => undefined) },
};
const logger = createLogger({ service: 'test', level: 'silent' });

let database: StateDatabase;
const opened: Array<StateStore<Tables>> = [];
const open = async (namespace: string, url = database.url) => {
  const store = await openStateStore<Tables>({ url, service: 'state-test', namespace, migrations, logger });
  opened.push(store);
  return store;
};

beforeAll(async () => {
  database = await freshStateDatabase();
});
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await database.drop();
  await stopStateServer();
});

test('two topic namespaces on one database each migrate their own tables and never see the other’s rows', async () => {
  const a = await open('a.');
  // The second namespace migrates while the first's migration tables exist: it must make its own.
  const b = await open('b.');
  await a.db.insertInto('notes').values({ text: 'from a' }).execute();
  await b.db.insertInto('notes').values({ text: 'from b' }).execute();
  expect(await a.db.selectFrom('notes').select('text').execute()).toEqual([{ text: 'from a' }]);
  expect(await b.db.selectFrom('notes').select('text').execute()).toEqual([{ text: 'from b' }]);
});

test('replicas of one namespace starting together migrate once and share the table', async () => {
  const replicas = await Promise.all([open('c.'), open('c.'), open('c.')]);
  await replicas[0].db.insertInto('notes').values({ text: 'shared' }).execute();
  expect(await replicas[2].db.selectFrom('notes').select('text').execute()).toEqual([{ text: 'shared' }]);
});

test("when the URL brings startup options of its own, then they hold and the namespace's schema is still every connection's", async () => {
  const url = `${database.url}${database.url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c work_mem=4321kB')}`;
  const c = await open('d.', url);
  await c.db.insertInto('notes').values({ text: 'from d' }).execute();
  expect(await c.db.selectFrom('notes').select('text').execute()).toEqual([{ text: 'from d' }]);
  const { rows } = await sql<{ work_mem: string }>`show work_mem`.execute(c.db);
  expect(rows[0]!.work_mem).toBe('4321kB');
});

test('when a newer version has migrated the store, then a replica of the version before still starts on it (a rolling upgrade, a rollback); one that lacks a migration the database skipped is refused by name', async () => {
  const labelled = {
    ...migrations,
    '0002-labels': { up: (db: Kysely<unknown>) => sql`alter table notes add column label text`.execute(db).then(() => undefined) },
  };
  const newer = await openStateStore<Tables>({ url: database.url, service: 'state-test', namespace: 'e.', migrations: labelled, logger });
  opened.push(newer);
  // The version before: it knows 0001 only, and writes as it always did.
  const older = await open('e.');
  await older.db.insertInto('notes').values({ text: 'from the version before' }).execute();
  expect(await newer.db.selectFrom('notes').select('text').execute()).toEqual([{ text: 'from the version before' }]);
  // A version that never had 0001 would run on a schema it does not know: refused, naming both.
  const other = { '0003-other': migrations['0001-notes'] };
  await expect(openStateStore({ url: database.url, service: 'state-test', namespace: 'e.', migrations: other, logger })).rejects.toThrow(
    /migrated by another version \(0001-notes, 0002-labels\) without 0003-other/,
  );
});
