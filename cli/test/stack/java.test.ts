import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requireJava } from '../../src/stack/java';

describe('requireJava', () => {
  let home: string;
  beforeAll(() => {
    // A JDK home as requireJava sees one: bin/java and a release file naming the version.
    home = mkdtempSync(path.join(os.tmpdir(), 'hookstream-fake-jdk-'));
    mkdirSync(path.join(home, 'bin'));
    writeFileSync(path.join(home, 'bin', 'java'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(home, 'bin', 'java'), 0o755);
    writeFileSync(path.join(home, 'release'), 'JAVA_VERSION="25.0.1"\n');
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  test('when HOOKSTREAM_JAVA_HOME ends with a slash, then it is the same JDK', async () => {
    const java = await requireJava(21, 'the test', { HOOKSTREAM_JAVA_HOME: `${home}/` });
    expect(java).toMatchObject({ home, major: 25, executable: path.join(home, 'bin', 'java') });
  });

  test('when HOOKSTREAM_JAVA_HOME is too old for what needs it, then the error says its version', async () => {
    await expect(requireJava(26, 'the test', { HOOKSTREAM_JAVA_HOME: home })).rejects.toThrow(/is Java 25; the test needs Java 26/);
  });

  test('when HOOKSTREAM_JAVA_HOME is no JDK, then the error says so', async () => {
    await expect(requireJava(21, 'the test', { HOOKSTREAM_JAVA_HOME: os.tmpdir() })).rejects.toThrow(/is not a JDK/);
  });
});
