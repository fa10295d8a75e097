import { ConfigError, ErrorCodes } from '@hookstream/errors';
import { loadConfig, serviceSchemaWithOpsPort, serviceSchemaWithPort } from '../src/config';

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

  describe('Kafka security', () => {
    test('when nothing about it is set, then the clients use PLAINTEXT', () => {
      expect(loadConfig(schema, valid)).toMatchObject({ KAFKA_SECURITY_PROTOCOL: 'PLAINTEXT' });
    });

    test('when SASL is chosen, then the mechanism, user name and password are each named as required', () => {
      expect(problemsOf({ ...valid, KAFKA_SECURITY_PROTOCOL: 'SASL_SSL', KAFKA_SASL_USERNAME: 'u' })).toEqual([
        { variable: 'KAFKA_SASL_MECHANISM', message: 'is required when KAFKA_SECURITY_PROTOCOL is SASL_SSL' },
        { variable: 'KAFKA_SASL_PASSWORD', message: 'is required when KAFKA_SECURITY_PROTOCOL is SASL_SSL' },
      ]);
    });

    test('when SASL or TLS settings are set without a protocol that uses them, then each is refused rather than ignored', () => {
      expect(problemsOf({ ...valid, KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', KAFKA_SSL_CA_FILE: __filename })).toEqual([
        { variable: 'KAFKA_SSL_CA_FILE', message: 'must be a readable PEM file of CA certificates' },
        { variable: 'KAFKA_SASL_USERNAME', message: 'is set, but KAFKA_SECURITY_PROTOCOL PLAINTEXT uses no SASL' },
        { variable: 'KAFKA_SASL_PASSWORD', message: 'is set, but KAFKA_SECURITY_PROTOCOL PLAINTEXT uses no SASL' },
        { variable: 'KAFKA_SSL_CA_FILE', message: 'is set, but KAFKA_SECURITY_PROTOCOL PLAINTEXT uses no TLS' },
      ]);
    });

    test.each([
      ['KAFKA_SECURITY_PROTOCOL', 'TLS', /PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL/],
      ['KAFKA_SASL_MECHANISM', 'GSSAPI', /PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512/],
      ['KAFKA_SSL_CA_FILE', '/nonexistent/ca.pem', /readable PEM file/],
    ])('when %s is %p, then the error names it and says what is wrong', (variable, value, message) => {
      const env = {
        ...valid,
        KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
        KAFKA_SASL_MECHANISM: 'PLAIN',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
      };
      const problems = problemsOf({ ...env, [variable]: value });
      expect(problems).toEqual([{ variable, message: expect.stringMatching(message) }]);
    });

    test('when a SASL setting is wrong, then the error does not show the password', () => {
      try {
        loadConfig(schema, {
          ...valid,
          KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
          KAFKA_SASL_MECHANISM: 'KERBEROS',
          KAFKA_SASL_PASSWORD: 'hunter2-secret',
        });
        throw new Error('expected a ConfigError');
      } catch (error) {
        expect((error as Error).message).toMatch(/KAFKA_SASL_USERNAME/);
        expect(JSON.stringify(error) + (error as Error).message).not.toContain('hunter2-secret');
      }
    });

    test('when protocol and mechanism are written in lower case, then they are read as Kafka names them', () => {
      const config = loadConfig(schema, {
        ...valid,
        KAFKA_SECURITY_PROTOCOL: 'sasl_plaintext',
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
      });
      expect(config).toMatchObject({ KAFKA_SECURITY_PROTOCOL: 'SASL_PLAINTEXT', KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512' });
    });
  });

  describe('the ops port of a service with a public API', () => {
    const withOps = serviceSchemaWithOpsPort(8080, 9080);
    const opsProblems = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(withOps, env);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      throw new Error('expected a ConfigError');
    };

    test('when nothing about it is set, then the ops routes are on the default OPS_PORT, on the HTTP_HOST (OPS_HOST unset)', () => {
      expect(loadConfig(withOps, valid)).toMatchObject({ HTTP_PORT: 8080, OPS_PORT: 9080, HTTP_HOST: '127.0.0.1' });
      expect(loadConfig(withOps, valid).OPS_HOST).toBeUndefined();
      expect(loadConfig(withOps, { ...valid, OPS_PORT: '9191', OPS_HOST: '10.0.0.5' })).toMatchObject({
        OPS_PORT: 9191,
        OPS_HOST: '10.0.0.5',
      });
    });

    test("when OPS_PORT is the same as HTTP_PORT, then it is refused (one port would serve /metrics to the API's callers)", () => {
      expect(opsProblems({ ...valid, HTTP_PORT: '8500', OPS_PORT: '8500' })).toEqual([
        { variable: 'OPS_PORT', message: 'must differ from HTTP_PORT (8500): the ops routes are served apart from the API' },
      ]);
      expect(opsProblems({ ...valid, OPS_PORT: '8080' })).toHaveLength(1);
      // 0 asks the system for a free port: two of them never collide.
      expect(loadConfig(withOps, { ...valid, HTTP_PORT: '0', OPS_PORT: '0' })).toMatchObject({ HTTP_PORT: 0, OPS_PORT: 0 });
    });

    test.each([
      ['OPS_PORT', '70000', /port/],
      ['OPS_PORT', 'nine', /number/],
      ['OPS_HOST', ' ', /.+/],
    ])('when %s is %p, then the error names it', (variable, value, message) => {
      const problems = opsProblems({ ...valid, [variable]: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]!.variable).toBe(variable);
      expect(problems[0]!.message).toMatch(message);
    });

    test('when a service has no public API, then OPS_PORT in its environment is not one of its settings', () => {
      expect(loadConfig(schema, { ...valid, OPS_PORT: '9080' })).not.toHaveProperty('OPS_PORT');
    });
  });
});
