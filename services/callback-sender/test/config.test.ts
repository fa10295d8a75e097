import { ConfigError } from '@hookstream/errors';
import { loadConfig } from '@hookstream/runtime';
import { configSchema } from '../src/config';

const required = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  SCHEMA_REGISTRY_URL: 'http://registry:8080/apis/ccompat/v7',
  HOOKSTREAM_SECRETS_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  DATABASE_URL: 'postgres://hookstream:secret@db:5432/hookstream',
};

function problemsOf(env: NodeJS.ProcessEnv): ConfigError['problems'] {
  try {
    loadConfig(configSchema, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('callback-sender configuration', () => {
  test('the state store is required: the newest policy versions live there', () => {
    const { DATABASE_URL: _, ...withoutStore } = required;
    expect(problemsOf(withoutStore).map((p) => p.variable)).toContain('DATABASE_URL');
    expect(loadConfig(configSchema, required).DATABASE_CONNECTIONS).toBe(10);
  });

  test('the defaults are valid: a retry schedule of 10 h 42 min, an open period of 30 s', () => {
    const config = loadConfig(configSchema, required);
    expect(config.CALLBACK_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBe(38_555_000);
    expect(config.BREAKER_OPEN_MS).toBe(30_000);
    expect([
      config.BREAKER_FAILURE_THRESHOLD,
      config.BREAKER_FAILURE_RATE,
      config.BREAKER_WINDOW_MS,
      config.BREAKER_SLOW_ANSWER_MS,
    ]).toEqual([5, 0.5, 10_000, 5_000]);
  });

  test.each(['0', '1.5', 'half'])('a BREAKER_FAILURE_RATE of %s is refused', (rate) => {
    expect(problemsOf({ ...required, BREAKER_FAILURE_RATE: rate }).map((p) => p.variable)).toEqual(['BREAKER_FAILURE_RATE']);
  });

  test('a retry schedule no longer than one open period is refused, naming both settings', () => {
    expect(problemsOf({ ...required, CALLBACK_RETRY_DELAYS_MS: '100,100,100,100,100,100,100,100', BREAKER_OPEN_MS: '800' })).toEqual([
      {
        variable: 'CALLBACK_RETRY_DELAYS_MS',
        message: 'the delays add up to 800 ms, which must be more than BREAKER_OPEN_MS (800 ms)',
      },
    ]);
    expect(() =>
      loadConfig(configSchema, { ...required, CALLBACK_RETRY_DELAYS_MS: '100,100,100,100,100,100,100,101', BREAKER_OPEN_MS: '800' }),
    ).not.toThrow();
  });
});
