import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@hookstream/runtime';
import { LocalDirectoryStorage } from '../../../src/adapters/storage/local-directory-storage';
import { Spool } from '../../../src/adapters/storage/spool';

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'local-storage-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function spooled(storage: LocalDirectoryStorage, body: string) {
  const spool = new Spool(storage.spoolDir, createLogger({ service: 'test', level: 'silent' }));
  await spool.open(60_000);
  const file = spool.newFile();
  writeFileSync(file, body);
  return { path: file, sha256: createHash('sha256').update(body).digest('hex'), sizeBytes: body.length, contentType: 'text/plain' };
}

describe('LocalDirectoryStorage', () => {
  test('when a body is stored, then it is under its content address and the spool file is gone', async () => {
    const storage = new LocalDirectoryStorage(dir);
    const document = await spooled(storage, 'policy schedule');
    const stored = await storage.store(document);
    const file = fileURLToPath(stored.uri);
    expect(path.relative(dir, file)).toBe(path.join(document.sha256.slice(0, 2), document.sha256));
    expect(readFileSync(file, 'utf8')).toBe('policy schedule');
    expect([stored.written, existsSync(document.path)]).toEqual([true, false]);
  });

  test('when the same bytes are stored twice, then the first copy stays and the second writes nothing', async () => {
    const storage = new LocalDirectoryStorage(dir);
    const first = await storage.store(await spooled(storage, 'same bytes'));
    const second = await storage.store(await spooled(storage, 'same bytes'));
    expect([second.uri, second.written]).toEqual([first.uri, false]);
    expect(readdirSync(storage.spoolDir)).toEqual([]);
  });
});

describe('Spool', () => {
  test('when a process left spool files behind, then opening the spool removes those older than asked and keeps the rest', async () => {
    const storage = new LocalDirectoryStorage(dir);
    const logger = createLogger({ service: 'test', level: 'silent' });
    const spool = new Spool(storage.spoolDir, logger);
    await spool.open(60_000);
    const old = spool.newFile();
    writeFileSync(old, 'half');
    const fresh = spool.newFile();
    writeFileSync(fresh, 'in progress');
    await new Spool(storage.spoolDir, logger).open(60_000, Date.now() + 30_000);
    expect([existsSync(old), existsSync(fresh)]).toEqual([true, true]);
    await new Spool(storage.spoolDir, logger).open(60_000, Date.now() + 120_000);
    expect([existsSync(old), existsSync(fresh)]).toEqual([false, false]);
  });
});
