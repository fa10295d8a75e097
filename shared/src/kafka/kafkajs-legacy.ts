/*
 * kafkajs, for the consumer groups and the admin until they move to librdkafka as the producers
 * and readers have (docs/architecture.md, "The Kafka client"). This file goes with kafkajs.
 */
import { logLevel, Partitioners, type KafkaConfig, type logCreator, type SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';
import { applyKafkajsFixes } from './kafkajs-fixes';
import type { KafkaClientSettings } from './client';
import { kafkaSecurityConfig } from './security';

/** kafkajs's default partitioner: the Java client's murmur2, as librdkafka's producers use. */
export const javaCompatiblePartitioner = Partitioners.DefaultPartitioner;

const levelNames: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** The broker's text for CONCURRENT_TRANSACTIONS, as kafkajs puts it in its log lines. */
const CONCURRENT_TRANSACTIONS_TEXT = 'concurrent operation on the same transaction';

/**
 * The pino level of one kafkajs log line. kafkajs logs every retriable CONCURRENT_TRANSACTIONS
 * answer at error level (a Connection line and a Producer line), yet that answer is the broker
 * asking the client to retry in a moment: a transaction began while the last one's commit markers
 * were still being written. kafkajs retries it by itself, and a transaction that still fails is
 * logged by the service. At error level, normal operation under load looked like an incident.
 */
export function kafkajsLogLevel(level: logLevel, message: string, error: unknown): 'error' | 'warn' | 'info' | 'debug' {
  if (level === logLevel.ERROR && `${message} ${typeof error === 'string' ? error : ''}`.includes(CONCURRENT_TRANSACTIONS_TEXT)) {
    return 'debug';
  }
  return levelNames[level] ?? 'info';
}

/** Routes kafkajs's own log lines into the service's pino logger. */
function pinoLogCreator(logger: Logger): logCreator {
  const kafkaLogger = logger.child({ module: 'kafkajs' });
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = log as Record<string, unknown> & { message: string };
      kafkaLogger[kafkajsLogLevel(level, message, extra.error)]({ namespace, ...extra }, message);
    };
}

export function kafkajsConfig(settings: KafkaClientSettings): KafkaConfig {
  applyKafkajsFixes();
  const config: KafkaConfig = {
    clientId: settings.clientId,
    brokers: settings.brokers,
    connectionTimeout: settings.connectionTimeoutMs ?? 3000,
    requestTimeout: settings.requestTimeoutMs ?? 30000,
    logLevel: { nothing: logLevel.NOTHING, error: logLevel.ERROR, warn: logLevel.WARN, info: logLevel.INFO }[
      settings.kafkaLogLevel ?? 'warn'
    ],
    logCreator: pinoLogCreator(settings.logger),
    retry: { initialRetryTime: 100, retries: settings.retries ?? 8 },
  };
  const { tls, sasl } = kafkaSecurityConfig(settings.security);
  if (tls) config.ssl = tls;
  if (sasl) config.sasl = { ...sasl, mechanism: sasl.mechanism.toLowerCase() } as SASLOptions;
  return config;
}
