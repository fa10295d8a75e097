import { KafkaConsumer } from '@confluentinc/kafka-javascript';
import { Kafka as KafkajsKafka, logLevel, Partitioners, type KafkaConfig, type ProducerConfig, type logCreator } from 'kafkajs';
export type { Admin, Consumer, EachBatchPayload, EachMessagePayload, Producer } from 'kafkajs';
export type { IHeaders, KafkaMessage, Message } from './types';
import type { Logger } from 'pino';
import { applyKafkajsFixes } from './kafkajs-fixes';
import { createPartitionConsumer, type NativeConsumer } from './partition-consumer';
import type { PartitionConsumer, PartitionConsumerOptions } from './types';

export interface KafkaClientSettings {
  brokers: string[];
  /** Shown in broker logs and quotas; include the service and replica. */
  clientId: string;
  logger: Logger;
  /** Default 3000. */
  connectionTimeoutMs?: number;
  /** Default 30000. */
  requestTimeoutMs?: number;
  /** Retries of a failed request (connect included) before giving up. Default 8; CLI health checks use 0. */
  retries?: number;
  /** Level of kafkajs's own log lines. Default 'warn'; CLI commands use 'nothing' and print their own message. */
  kafkaLogLevel?: 'nothing' | 'error' | 'warn' | 'info';
}

/**
 * The partitioner every Hookstream producer uses: kafkajs's default, the Java client's murmur2
 * (so a key lands where a Java producer would put it). Passing it explicitly also silences
 * kafkajs's notice about the v2 default change.
 */
export const javaCompatiblePartitioner = Partitioners.DefaultPartitioner;

/**
 * The producer settings every Hookstream writer starts from: idempotent (a retried produce never
 * writes a record twice), one request in flight (what kafkajs needs for that), the Java client's
 * partitioner, and no topic created by accident (topics come from `hookstream topics ensure`).
 * Transactional producers add their transactionalId and retry settings.
 */
export const IDEMPOTENT_PRODUCER: Readonly<ProducerConfig> = {
  createPartitioner: javaCompatiblePartitioner,
  idempotent: true,
  maxInFlightRequests: 1,
  allowAutoTopicCreation: false,
};

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

/**
 * The Kafka client of one process: the producers, consumers and admins it makes share its
 * connection settings and log through pino. Connections are made by what it creates.
 */
export class Kafka extends KafkajsKafka {
  constructor(private readonly settings: KafkaClientSettings) {
    super(kafkajsConfig(settings));
  }

  /** A consumer outside any group, on librdkafka, for the partitions it is assigned (see PartitionConsumer). */
  partitionConsumer(options: PartitionConsumerOptions = {}): PartitionConsumer {
    const create = (config: Record<string, unknown>, topicConfig: Record<string, unknown>) =>
      new KafkaConsumer(config, topicConfig) as unknown as NativeConsumer;
    return createPartitionConsumer(create, this.connectionConfig(), options);
  }

  /** librdkafka's connection settings for this client. */
  private connectionConfig(): Record<string, unknown> {
    return {
      'bootstrap.servers': this.settings.brokers.join(','),
      'client.id': this.settings.clientId,
      'socket.connection.setup.timeout.ms': Math.max(1000, this.settings.connectionTimeoutMs ?? 3000),
      'socket.timeout.ms': this.settings.requestTimeoutMs ?? 30000,
      // Reconnect quickly after a broker comes back: at most a second between tries.
      'reconnect.backoff.ms': 50,
      'reconnect.backoff.max.ms': 1000,
      log_level: 4,
    };
  }
}

/** The client of one process (see Kafka). */
export function createKafkaClient(settings: KafkaClientSettings): Kafka {
  return new Kafka(settings);
}

function kafkajsConfig(settings: KafkaClientSettings): KafkaConfig {
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
  return config;
}
