import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import type { SASL_MECHANISMS, SECURITY_PROTOCOLS } from '@hookstream/runtime';
import { ConfigError } from '@hookstream/errors';

/** How a process's Kafka clients reach the brokers: TLS, SASL, both or neither (KAFKA_SECURITY_PROTOCOL and the rest). */
export interface KafkaSecurity {
  protocol: (typeof SECURITY_PROTOCOLS)[number];
  /** PEM file of the CAs the brokers' certificates are checked against (SSL, SASL_SSL). Default: the system's CAs. */
  caFile?: string;
  /** The SASL login (SASL_PLAINTEXT, SASL_SSL). */
  sasl?: { mechanism: (typeof SASL_MECHANISMS)[number]; username: string; password: string };
}

/** The same security for each kind of client: librdkafka's properties, and Node's TLS options and a SASL login for a pure-JS one. */
export interface KafkaSecurityConfig {
  /** security.protocol, ssl.ca.location, sasl.mechanisms, sasl.username, sasl.password: as many as apply. */
  librdkafka: Record<string, unknown>;
  /** Present when the protocol is SSL or SASL_SSL: the CAs to trust (the brokers' names are checked too, as librdkafka does). */
  tls?: tls.ConnectionOptions;
  /** Present when the protocol is SASL_*; `mechanism` as Kafka names it ('PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'). */
  sasl?: { mechanism: string; username: string; password: string };
}

/** The settings that config.ts's kafkaSettingsSchema reads (loadConfig has checked that they fit together). */
export interface KafkaSecuritySettings {
  KAFKA_SECURITY_PROTOCOL: KafkaSecurity['protocol'];
  KAFKA_SSL_CA_FILE?: string | undefined;
  KAFKA_SASL_MECHANISM?: (typeof SASL_MECHANISMS)[number] | undefined;
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
}

/** The KafkaSecurity of validated settings. */
export function kafkaSecurity(settings: KafkaSecuritySettings): KafkaSecurity {
  const protocol = settings.KAFKA_SECURITY_PROTOCOL;
  const security: KafkaSecurity = { protocol };
  if (settings.KAFKA_SSL_CA_FILE) security.caFile = settings.KAFKA_SSL_CA_FILE;
  if (protocol.startsWith('SASL_')) {
    const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = settings;
    if (!mechanism || username === undefined || password === undefined) {
      const missing = Object.entries({ KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password })
        .filter(([, value]) => value === undefined)
        .map(([variable]) => ({ variable, message: `is required when KAFKA_SECURITY_PROTOCOL is ${protocol}` }));
      throw new ConfigError(missing);
    }
    security.sasl = { mechanism, username, password };
  }
  return security;
}

/** What each kind of client is given for `security` (none of it for PLAINTEXT). */
export function kafkaSecurityConfig(security: KafkaSecurity | undefined): KafkaSecurityConfig {
  if (!security || security.protocol === 'PLAINTEXT') return { librdkafka: {} };
  const config: KafkaSecurityConfig = { librdkafka: { 'security.protocol': security.protocol.toLowerCase() } };
  if (security.protocol.endsWith('SSL')) {
    if (security.caFile) config.librdkafka['ssl.ca.location'] = security.caFile;
    // librdkafka without ssl.ca.location uses OpenSSL's default paths, the system's CAs: the same here.
    config.tls = { ca: security.caFile ? readFileSync(security.caFile, 'utf8') : tls.getCACertificates('system') };
  }
  if (security.protocol.startsWith('SASL_')) {
    if (!security.sasl)
      throw new ConfigError([
        { variable: 'KAFKA_SASL_MECHANISM', message: `is required when KAFKA_SECURITY_PROTOCOL is ${security.protocol}` },
      ]);
    const { mechanism, username, password } = security.sasl;
    Object.assign(config.librdkafka, { 'sasl.mechanisms': mechanism, 'sasl.username': username, 'sasl.password': password });
    config.sasl = { mechanism, username, password };
  }
  return config;
}
