import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalJaeger } from '../../src/stack/jaeger';

describe('startLocalJaeger', () => {
  let cacheDir: string;
  beforeEach(() => (cacheDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-jaeger-cache-'))));
  afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

  const start = (env: NodeJS.ProcessEnv) => {
    const lines: string[] = [];
    const started = startLocalJaeger({ cacheDir, dir: path.join(cacheDir, 'run'), env, log: (line) => lines.push(line) });
    return { started, lines };
  };

  test('when Go is not on PATH and no Jaeger is cached, then the system starts without one and says so', async () => {
    const { started, lines } = start({ PATH: path.join(cacheDir, 'no-such-bin') });
    expect(await started).toBeUndefined();
    expect(lines.at(-1)).toMatch(/Go is not on PATH to build Jaeger: starting without a trace store/);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  test('when the environment already names an OTLP endpoint, then no local Jaeger is started: traces go there', async () => {
    const { started, lines } = start({ PATH: process.env.PATH, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    expect(await started).toBeUndefined();
    expect(lines).toEqual(['traces: exported where OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT says; no local Jaeger']);
  });
});
