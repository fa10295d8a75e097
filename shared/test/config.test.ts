import { ConfigError, ErrorCodes } from '../src/errors';
import { loadConfig, serviceSchemaWithPort } from '../src/config';

const schema = serviceSchemaWithPort(8080);
const valid = { KAFKA_BROKERS: '127.0.0.1:9092, kafka-2:9092', SCHEMA_REGISTRY_URL: 'http://registry:8080/apis/ccompat/v7/' };

function problemsOf(env: NodeJS.ProcessEnv): ConfigError['problems'] {
  try {
    loadConfig(schema, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe(ErrorCodes.CONFIG_INVALID);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  test('when every required variable is valid, then defaults fill the rest and values are normalised', () => {
    const config = loadConfig(schema, valid);
    expect(config.KAFKA_BROKERS).toEqual(['127.0.0.1:9092', 'kafka-2:9092']);
    expect(config.SCHEMA_REGISTRY_URL).toBe('http://registry:8080/apis/ccompat/v7');
    expect(config.HTTP_PORT).toBe(8080);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.TOPIC_PREFIX).toBe('');
  });

  test('when required variables are missing, then every one is named as required', () => {
    expect(problemsOf({})).toEqual(
      expect.arrayContaining([
        { variable: 'KAFKA_BROKERS', message: 'is required but not set' },
        { variable: 'SCHEMA_REGISTRY_URL', message: 'is required but not set' },
      ]),
    );
  });

  test('when a variable is set to an empty string, then it counts as not set', () => {
    expect(problemsOf({ ...valid, KAFKA_BROKERS: '' })).toEqual([{ variable: 'KAFKA_BROKERS', message: 'is required but not set' }]);
  });

  test.each([
    ['KAFKA_BROKERS', 'localhost', /host:port/],
    ['SCHEMA_REGISTRY_URL', 'registry:8081', /URL/],
    ['SCHEMA_REGISTRY_URL', 'ftp://registry/x', /http/],
    ['SCHEMA_REGISTRY_URL', 'http://user:s3cret@registry:8080', /must not contain credentials/],
    ['HTTP_PORT', '70000', /port/],
    ['HTTP_PORT', 'eighty', /number/],
    ['LOG_LEVEL', 'loud', /.+/],
    ['TOPIC_PREFIX', 'has space', /letters/],
    ['SHUTDOWN_TIMEOUT_MS', '-5', /greater than 0/],
  ])('when %s is %p, then the error names it and says what is wrong', (variable, value, message) => {
    const problems = problemsOf({ ...valid, [variable]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.variable).toBe(variable);
    expect(problems[0]!.message).toMatch(message);
  });

  test('the error message lists each bad variable on its own line', () => {
    try {
      loadConfig(schema, { HTTP_PORT: 'x' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as Error).message).toMatch(
        /^Invalid configuration:\n {2}KAFKA_BROKERS: .+\n {2}SCHEMA_REGISTRY_URL: .+\n {2}HTTP_PORT: .+$/,
      );
    }
  });
});
