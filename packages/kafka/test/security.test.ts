import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kafkaSecurity, kafkaSecurityConfig } from '../src/security';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('kafkaSecurityConfig', () => {
  let dir: string;
  let caFile: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-security-'));
    caFile = path.join(dir, 'ca.pem');
    writeFileSync(caFile, PEM);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('when there is no security or PLAINTEXT, then no client is given any', () => {
    expect(kafkaSecurityConfig(undefined)).toEqual({ librdkafka: {} });
    expect(kafkaSecurityConfig({ protocol: 'PLAINTEXT' })).toEqual({ librdkafka: {} });
  });

  test('when SSL names a CA file, then librdkafka gets its path and a pure-JS client its certificates', () => {
    expect(kafkaSecurityConfig({ protocol: 'SSL', caFile })).toEqual({
      librdkafka: { 'security.protocol': 'ssl', 'ssl.ca.location': caFile },
      tls: { ca: PEM },
    });
  });

  test("when SSL names no CA file, then both trust the system's CAs", () => {
    const config = kafkaSecurityConfig({ protocol: 'SSL' });
    expect(config.librdkafka).toEqual({ 'security.protocol': 'ssl' });
    expect(Array.isArray(config.tls?.ca)).toBe(true);
  });

  test('when SASL_SSL is chosen, then each client gets the login and TLS', () => {
    const sasl = { mechanism: 'SCRAM-SHA-256', username: 'u', password: 'p' } as const;
    expect(kafkaSecurityConfig({ protocol: 'SASL_SSL', caFile, sasl })).toEqual({
      librdkafka: {
        'security.protocol': 'sasl_ssl',
        'ssl.ca.location': caFile,
        'sasl.mechanisms': 'SCRAM-SHA-256',
        'sasl.username': 'u',
        'sasl.password': 'p',
      },
      tls: { ca: PEM },
      sasl,
    });
  });

  test('when SASL_PLAINTEXT is chosen, then there is a login and no TLS', () => {
    const config = kafkaSecurityConfig({ protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'u', password: 'p' } });
    expect(config.librdkafka['security.protocol']).toBe('sasl_plaintext');
    expect(config.tls).toBeUndefined();
    expect(config.sasl).toEqual({ mechanism: 'PLAIN', username: 'u', password: 'p' });
  });
});

describe('kafkaSecurity', () => {
  test('when the settings choose SASL, then the login is taken from them', () => {
    expect(
      kafkaSecurity({
        KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
        KAFKA_SASL_MECHANISM: 'PLAIN',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
      }),
    ).toEqual({ protocol: 'SASL_SSL', sasl: { mechanism: 'PLAIN', username: 'u', password: 'p' } });
  });

  test('when the settings lack part of the login, then the error names what is missing', () => {
    expect(() => kafkaSecurity({ KAFKA_SECURITY_PROTOCOL: 'SASL_PLAINTEXT', KAFKA_SASL_MECHANISM: 'PLAIN' })).toThrow(
      /KAFKA_SASL_USERNAME: is required when KAFKA_SECURITY_PROTOCOL is SASL_PLAINTEXT\n {2}KAFKA_SASL_PASSWORD/,
    );
  });
});
