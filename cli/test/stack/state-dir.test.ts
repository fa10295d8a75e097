import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { START_LOCK_FILE, cloneStateRoot, defaultStateDir, lockStateDir, wipeRefusal } from '../../src/stack/state-dir';

describe('state dir', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-state-unit-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('defaultStateDir', () => {
    const env = { HOME: '/home/partner-dev' };

    test('when two clones run on one machine, then each keeps its stack in a folder of its own, named for it', () => {
      const first = cloneStateRoot(env, '/work/hookstream');
      const second = cloneStateRoot(env, '/work/review/hookstream');
      expect(first).not.toEqual(second);
      expect(path.dirname(first)).toBe('/home/partner-dev/.local/state/hookstream');
      expect(path.basename(first)).toMatch(/^hookstream-[0-9a-f]{8}$/);
      expect(cloneStateRoot(env, '/work/hookstream/')).toBe(first);
    });

    test('when XDG_STATE_HOME or HOOKSTREAM_STATE_DIR is set, then it is honoured', () => {
      expect(defaultStateDir({ ...env, XDG_STATE_HOME: '/var/state' })).toMatch(/^\/var\/state\/hookstream\/[^/]+\/stack$/);
      expect(defaultStateDir({ ...env, HOOKSTREAM_STATE_DIR: 'relative/dir' })).toBe(path.resolve('relative/dir'));
    });
  });

  describe('wipeRefusal', () => {
    test('when the folder is absent or empty, then it may be wiped', () => {
      expect(wipeRefusal(path.join(dir, 'absent'))).toBeUndefined();
      expect(wipeRefusal(dir)).toBeUndefined();
    });

    test('when it holds only what a stack keeps, then it may be wiped', () => {
      mkdirSync(path.join(dir, 'kafka'));
      mkdirSync(path.join(dir, 'kafka-cluster'));
      mkdirSync(path.join(dir, 'registry'));
      mkdirSync(path.join(dir, 'postgres'));
      mkdirSync(path.join(dir, 'jaeger'));
      writeFileSync(path.join(dir, 'run.json'), '{}');
      writeFileSync(path.join(dir, 'secrets.env'), '');
      expect(wipeRefusal(dir)).toBeUndefined();
    });

    test('when it holds anything else, then it is refused and the refusal names what it found', () => {
      mkdirSync(path.join(dir, 'kafka'));
      writeFileSync(path.join(dir, 'thesis.tex'), '');
      mkdirSync(path.join(dir, 'photos'));
      const refusal = wipeRefusal(dir);
      expect(refusal).toContain('does not look like a stack state dir');
      expect(refusal).toContain('thesis.tex');
      expect(refusal).toContain('photos/');
    });

    test('when a known name has the wrong kind (a file called kafka), then it is refused', () => {
      writeFileSync(path.join(dir, 'kafka'), '');
      expect(wipeRefusal(dir)).toContain('kafka');
    });

    test('when the path is a file, then it is refused', () => {
      const file = path.join(dir, 'file');
      writeFileSync(file, '');
      expect(wipeRefusal(file)).toContain('is not a folder');
    });
  });

  describe('lockStateDir', () => {
    const lockFile = () => path.join(dir, START_LOCK_FILE);

    test('when free, then it is taken with our pid and released', () => {
      const release = lockStateDir(dir);
      expect(readFileSync(lockFile(), 'utf8').trim()).toBe(String(process.pid));
      release();
      expect(existsSync(lockFile())).toBe(false);
    });

    test('when held by a live process, then a second taker fails with a clear message', () => {
      const release = lockStateDir(dir);
      try {
        expect(() => lockStateDir(dir)).toThrow(new RegExp(`another hookstream \\(pid ${process.pid}\\) is starting a stack from`));
      } finally {
        release();
      }
    });

    test('when held by a process that is gone, then it is stale and taken over', () => {
      writeFileSync(lockFile(), '2147483646\n'); // no such pid
      const release = lockStateDir(dir);
      expect(readFileSync(lockFile(), 'utf8').trim()).toBe(String(process.pid));
      release();
    });

    test('when the lock was taken over by another process, then releasing ours leaves theirs', () => {
      const release = lockStateDir(dir);
      writeFileSync(lockFile(), '1\n');
      release();
      expect(existsSync(lockFile())).toBe(true);
    });
  });
});
