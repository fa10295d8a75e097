import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { StackRunInfo } from '../../src/stack/run-info';
import { removeStackEnvOf, stackEnvStateDir, writeStackEnv } from '../../src/stack/stack-env';

describe('stack.env', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-env-unit-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const written = (stateDir: string, traces?: StackRunInfo['traces']) => {
    const file = path.join(dir, 'stack.env');
    const settings = { KAFKA_BROKERS: 'b:1', SCHEMA_REGISTRY_URL: 'http://r', DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/hookstream' };
    const info = { stateDir, startedAt: '2026-01-01T00:00:00.000Z', settings, ...(traces && { traces }) };
    writeStackEnv(file, info as StackRunInfo);
    return file;
  };

  test('when written, then its first line names the state dir', () => {
    const stateDir = path.join(dir, 'state. with dots.');
    expect(stackEnvStateDir(written(stateDir))).toBe(stateDir);
  });

  test("when written, then it gives the stack's DATABASE_URL beside the broker and registry", () => {
    const saved = parseEnv(readFileSync(written(path.join(dir, 'state')), 'utf8'));
    expect(saved).toMatchObject({
      KAFKA_BROKERS: 'b:1',
      SCHEMA_REGISTRY_URL: 'http://r',
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/hookstream',
    });
  });

  test("when the stack runs Jaeger, then it gives the services' OTLP endpoint and the console's trace link; without one, neither", () => {
    const traced = parseEnv(
      readFileSync(written(path.join(dir, 'state'), { otlpUrl: 'http://127.0.0.1:4318', uiUrl: 'http://127.0.0.1:16686' }), 'utf8'),
    );
    expect(traced).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      DELIVERY_LOG_TRACE_URL: 'http://127.0.0.1:16686/trace/{trace_id}',
    });
    const untraced = parseEnv(readFileSync(written(path.join(dir, 'state'), { none: 'Go is not on PATH' }), 'utf8'));
    expect(Object.keys(untraced).filter((name) => /OTEL|TRACE/.test(name))).toEqual([]);
  });

  test('when its stack stops, then it is removed', () => {
    const stateDir = path.join(dir, 'state');
    const file = written(stateDir);
    expect(removeStackEnvOf(file, `${stateDir}/`)).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  test('when another state dir stops, or the file is not ours, then it is kept', () => {
    const file = written(path.join(dir, 'state'));
    expect(removeStackEnvOf(file, path.join(dir, 'other'))).toBe(false);
    expect(existsSync(file)).toBe(true);
    writeFileSync(file, 'KAFKA_BROKERS=somewhere:9092\n');
    expect(removeStackEnvOf(file, path.join(dir, 'state'))).toBe(false);
    expect(existsSync(file)).toBe(true);
  });
});
