import { ConfigError } from '@hookstream/errors';
import { loadConfig } from '@hookstream/runtime';
import { configSchema } from '../src/config';

const required = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  SCHEMA_REGISTRY_URL: 'http://registry:8080/apis/ccompat/v7',
  HOOKSTREAM_SECRETS_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  HOOKSTREAM_API_KEY_PEPPERS: `p1:${Buffer.alloc(32, 9).toString('base64')}`,
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

describe('ingress configuration', () => {
  test('the defaults are valid: a claim lasts 15 s, 5 s longer than a write may take', () => {
    const config = loadConfig(configSchema, required);
    expect([config.INGRESS_WRITE_TIMEOUT_MS, config.IDEMPOTENCY_CLAIM_TTL_MS]).toEqual([10_000, 15_000]);
  });

  test('a claim TTL that a write could outlive is refused, naming the setting and the least it may be', () => {
    const problems = problemsOf({ ...required, INGRESS_WRITE_TIMEOUT_MS: '12000' });
    expect(problems.map((p) => p.variable)).toEqual(['IDEMPOTENCY_CLAIM_TTL_MS']);
    expect(problems[0]!.message).toContain('17000 ms');
    expect(
      loadConfig(configSchema, { ...required, INGRESS_WRITE_TIMEOUT_MS: '12000', IDEMPOTENCY_CLAIM_TTL_MS: '17000' })
        .IDEMPOTENCY_CLAIM_TTL_MS,
    ).toBe(17_000);
  });
});
