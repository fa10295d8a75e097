import { TRACING_SETTINGS, tracingEnv } from '../../src/tracing/settings';

const [off, tenth, all] = TRACING_SETTINGS;
const base = { TOPIC_PREFIX: 'p.', OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' };

describe('the tracing benches settings', () => {
  it('leaves no OTEL_* variable of the bench in the environment when tracing is off', () => {
    expect(tracingEnv(base, off!, 'http://127.0.0.1:4318')).toEqual({ TOPIC_PREFIX: 'p.' });
  });

  it('exports to the given Jaeger with a parent-based ratio sampler of 0.1 and 1', () => {
    const expected = (arg: string) => ({
      TOPIC_PREFIX: 'p.',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: arg,
    });
    expect(tracingEnv(base, tenth!, 'http://127.0.0.1:4318')).toEqual(expected('0.1'));
    expect(tracingEnv(base, all!, 'http://127.0.0.1:4318')).toEqual(expected('1'));
  });
});
