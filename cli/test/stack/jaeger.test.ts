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
    const why = 'Go is not on PATH to build Jaeger: starting without a trace store (the services trace nothing)';
    expect(await started).toEqual({ none: why });
    expect(lines.at(-1)).toBe(`traces: ${why}`);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  test('when the environment already names an OTLP endpoint, then no local Jaeger is started: traces go there', async () => {
    const { started, lines } = start({ PATH: process.env.PATH, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
    expect(await started).toEqual({ none: 'exported where OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT says; no local Jaeger' });
    expect(lines).toEqual(['traces: exported where OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT says; no local Jaeger']);
  });

  test('when Jaeger exits as it starts, then the stack goes on without a trace store and says where to look, rather than failing', async () => {
    // `false` ends at once, as a broken or foreign binary would.
    const { started, lines } = start({ PATH: process.env.PATH, HOOKSTREAM_JAEGER_BIN: '/bin/false' });
    const answer = await started;
    expect(answer).toEqual({ none: expect.stringMatching(/^no trace store: Jaeger exited as it started; see .*jaeger\.log$/) });
    expect(lines.at(-1)).toBe(`traces: ${(answer as { none: string }).none}`);
  });
});
