import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ConfigError } from '@hookstream/errors';
import { startTracing, tracingSettingsFrom } from '../../src/tracing/start';

describe('tracingSettingsFrom', () => {
  test('when no exporter and no endpoint is set, then tracing is off', () => {
    expect(tracingSettingsFrom({})).toEqual({ enabled: false });
    expect(tracingSettingsFrom({ OTEL_TRACES_SAMPLER: 'always_on' })).toEqual({ enabled: false });
  });

  test('when an OTLP endpoint is set, then traces go there over OTLP, every root trace sampled, parents followed', () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({
      enabled: true,
      exporter: 'otlp',
      sampling: { parentBased: true, ratio: 1 },
    });
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toMatchObject({ enabled: true });
  });

  test('when OTEL_TRACES_SAMPLER(_ARG) ask for a ratio, then that ratio, parent-based or not', () => {
    const base = { OTEL_TRACES_EXPORTER: 'otlp' };
    expect(tracingSettingsFrom({ ...base, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toMatchObject(
      {
        sampling: { parentBased: true, ratio: 0.1 },
      },
    );
    expect(tracingSettingsFrom({ ...base, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toMatchObject({
      sampling: { parentBased: false, ratio: 0.25 },
    });
    expect(tracingSettingsFrom({ ...base, OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toMatchObject({
      sampling: { parentBased: true, ratio: 0 },
    });
  });

  test('when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, then off whatever the endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingSettingsFrom({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toEqual({ enabled: false });
    expect(tracingSettingsFrom({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toEqual({ enabled: false });
  });

  test('when a value is not one the spec knows, then a ConfigError names each variable', () => {
    let thrown: unknown;
    try {
      tracingSettingsFrom({ OTEL_TRACES_EXPORTER: 'jaeger', OTEL_TRACES_SAMPLER: 'sometimes', OTEL_TRACES_SAMPLER_ARG: '2' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems.map((p) => p.variable)).toEqual(['OTEL_TRACES_EXPORTER', 'OTEL_TRACES_SAMPLER']);
    expect(() => tracingSettingsFrom({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
  });
});

describe('startTracing', () => {
  test('when tracing is off, then the SDK is not even loaded; on, it is', () => {
    // In a Node of its own (the compiled entry, as a service loads it): Jest's module registry is not Node's.
    const entry = path.resolve(__dirname, '../../dist/tracing/start.js');
    const sdkLoaded = (env: NodeJS.ProcessEnv) =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `require(${JSON.stringify(entry)}).startTracing('test', process.env); console.log(Object.keys(require.cache).some((p) => p.includes('sdk-trace')))`,
        ],
        { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
      ).trim();
    expect(sdkLoaded({})).toBe('false');
    expect(sdkLoaded({ OTEL_TRACES_EXPORTER: 'console' })).toBe('true');
  });

  test('when a setting is refused, then the start does not throw but hands the error to the service runtime', () => {
    const tracing = startTracing('test', { OTEL_TRACES_EXPORTER: 'zipkin' });
    expect(tracing.enabled).toBe(false);
    expect(tracing.configError).toBeInstanceOf(ConfigError);
  });
});
