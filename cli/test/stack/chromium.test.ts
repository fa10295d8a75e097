import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureChromium } from '../../src/stack/chromium';

// The facts ensureChromium reads from the machine; which of them wins is chromium-plan.test.ts's.
describe('ensureChromium', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-fake-chromium-'));
    writeFileSync(path.join(dir, 'chromium'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(dir, 'chromium'), 0o755);
    writeFileSync(path.join(dir, 'not-executable'), '');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('when HOOKSTREAM_CHROMIUM is an executable, then it is used as it is, installing nothing', async () => {
    const said: string[] = [];
    const binary = await ensureChromium({ HOOKSTREAM_CHROMIUM: path.join(dir, 'chromium') }, { say: (line) => said.push(line) });
    expect(binary).toEqual({ path: path.join(dir, 'chromium') });
    expect(said).toEqual([]);
  });

  test('when HOOKSTREAM_CHROMIUM is relative, then it is taken from the working directory', async () => {
    const relative = path.relative(process.cwd(), path.join(dir, 'chromium'));
    await expect(ensureChromium({ HOOKSTREAM_CHROMIUM: relative })).resolves.toEqual({ path: path.join(dir, 'chromium') });
  });

  test('when HOOKSTREAM_CHROMIUM is not executable or a folder, then it is refused', async () => {
    for (const given of [path.join(dir, 'not-executable'), dir, path.join(dir, 'absent')]) {
      await expect(ensureChromium({ HOOKSTREAM_CHROMIUM: given })).rejects.toThrow(
        `HOOKSTREAM_CHROMIUM=${given} is not an executable file`,
      );
    }
  });
});
