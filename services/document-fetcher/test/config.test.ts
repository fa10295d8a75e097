import { loadConfig } from '@hookstream/runtime';
import { configSchema } from '../src/config';

const base = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
  DATABASE_URL: 'postgres://hookstream:hookstream@127.0.0.1:5432/hookstream',
};

describe('document-fetcher config', () => {
  test('when only Kafka, the registry and the store are set, then the defaults are the documented ones', () => {
    const config = loadConfig(configSchema, base);
    expect(config).toMatchObject({
      HTTP_PORT: 8093,
      DOCUMENT_STORAGE: 'local',
      DOCUMENT_MAX_BYTES: 50 * 1024 * 1024,
      DOCUMENT_CONNECT_TIMEOUT_MS: 5_000,
      DOCUMENT_TIMEOUT_MS: 120_000,
      DOCUMENT_MAX_REDIRECTS: 5,
      DOCUMENT_RETRY_DELAYS_MS: [10_000, 60_000, 600_000, 3_600_000],
      FETCHER_PARTNER_CONCURRENCY: 8,
      SSRF_ALLOW: [],
      DATABASE_CONNECTIONS: 10,
    });
  });

  test('when the store is not set, then DATABASE_URL is named', () => {
    const { DATABASE_URL: _, ...withoutStore } = base;
    expect(() => loadConfig(configSchema, withoutStore)).toThrow(/DATABASE_URL/);
  });

  test('when the S3 store is chosen without a bucket, or the tiers are miscounted, then each bad variable is named', () => {
    expect(() => loadConfig(configSchema, { ...base, DOCUMENT_STORAGE: 's3' })).toThrow(/DOCUMENT_S3_BUCKET/);
    expect(() => loadConfig(configSchema, { ...base, DOCUMENT_RETRY_DELAYS_MS: '1,2' })).toThrow(/DOCUMENT_RETRY_DELAYS_MS/);
    expect(() => loadConfig(configSchema, { ...base, SSRF_ALLOW: '10.0.0.0/99' })).toThrow(/SSRF_ALLOW/);
  });

  test('when the S3 store is chosen with its settings, then they are read', () => {
    const env = {
      ...base,
      DOCUMENT_STORAGE: 's3',
      DOCUMENT_S3_BUCKET: 'docs',
      DOCUMENT_S3_FORCE_PATH_STYLE: 'true',
      DOCUMENT_S3_ENDPOINT: 'http://127.0.0.1:9000',
    };
    expect(loadConfig(configSchema, env)).toMatchObject({
      DOCUMENT_S3_BUCKET: 'docs',
      DOCUMENT_S3_FORCE_PATH_STYLE: true,
      DOCUMENT_S3_PREFIX: 'documents/',
    });
  });
});
