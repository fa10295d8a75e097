/*
 * The one module, with the admin's (admin.ts, admin-answers.ts, platformatic-admin.ts), that
 * imports the Kafka client libraries: Confluent's librdkafka client, its KafkaJS-style API for
 * producers and the admin, its native API for consumer-group members (group-consumer.ts),
 * transactional producers (transactional-producer.ts) and the group-less readers
 * (partition-consumer.ts); the admin has Platformatic's client beside it for what librdkafka's
 * binding lacks, imported by platformatic-admin.ts alone. The rest of the code sees Hookstream's
 * own types (types.ts); the settings librdkafka runs with are in librdkafka-settings.ts. Importing
 * it changes nothing in the process (see sizeLibuvThreadPool).
 */
import { KafkaConsumer, KafkaJS, Producer as NativeProducer } from '@confluentinc/kafka-javascript';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { KafkaAdmin } from './admin';
import { BrokerConnectivity } from './broker-connectivity';
import { HookstreamProducer } from './producer';
import { GroupConsumer } from './group-consumer';
import { clientErrorListener, type GroupClientHooks, type NativeGroupClient, type NativeTransactionalClient } from './native-clients';
import { createPartitionConsumer, type NativeConsumer } from './partition-consumer';
import { RequestCounts } from './request-count';
import {
  groupMemberSettings,
  maxPollIntervalOf,
  producerSettings,
  RECONNECTION,
  STATISTICS_INTERVAL_MS,
  transactionalSettings,
} from './librdkafka-settings';
import { kafkaSecurityConfig, type KafkaSecurity } from './security';
import { TransactionalProducer } from './transactional-producer';
import type { Admin, ClientStatistics, Consumer, PartitionConsumer, PartitionConsumerOptions, Producer, TopicPartition } from './types';
import type { ConsumerOptions, ProducerOptions } from './client-options';

/** libuv's thread pool a Kafka client wants (see sizeLibuvThreadPool). */
const LIBUV_THREADS = 16;

/**
 * Each consumer's take from librdkafka waits for records in a thread of libuv's pool (up to 100 ms
 * each time): with a service's readers and group members that is up to six threads, and the pool
 * has four by default, so takes would queue behind each other and file, DNS and crypto work behind
 * them. libuv reads UV_THREADPOOL_SIZE once, when its pool is first used (the uv_once in libuv's
 * threadpool.c), not when the binding loads; and a pino logger's first line already uses it (its
 * asynchronous write). So whoever makes a client calls this before anything else: the service
 * runtime and the CLI first of all, and the Kafka constructor for the other makers (benchmarks,
 * tests), where it helps only if nothing used the pool before.
 * Measured (docs/architecture.md, "The Kafka runtime"): called first, 16 threads; a client made
 * after one line logged, 4. A size set in the environment wins. It used to run on import of this
 * module, which changed process.env for anything that merely imported the package.
 */
export function sizeLibuvThreadPool(env: NodeJS.ProcessEnv = process.env): void {
  env.UV_THREADPOOL_SIZE ??= String(LIBUV_THREADS);
}

export type {
  Admin,
  Batch,
  Consumer,
  EachBatchPayload,
  EachMessagePayload,
  IHeaders,
  KafkaMessage,
  Message,
  Producer,
  RecordMetadata,
  Transaction,
} from './types';

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
  /** Level of the client's own log lines. Default 'warn'; CLI commands use 'nothing' and print their own message. */
  kafkaLogLevel?: 'nothing' | 'error' | 'warn' | 'info';
  /** TLS and SASL to the brokers (security.ts). Default: neither (PLAINTEXT). */
  security?: KafkaSecurity;
}

/** An admin's settings. */
export interface AdminOptions {
  /** Retries of its connect and of a request that can be repeated safely (0: one try, for health checks). Default the client's. */
  retries?: number;
}

const LOG_LEVELS = {
  nothing: KafkaJS.logLevel.NOTHING,
  error: KafkaJS.logLevel.ERROR,
  warn: KafkaJS.logLevel.WARN,
  info: KafkaJS.logLevel.INFO,
};

/** Routes the client's own log lines at or above `level` into the service's pino logger. */
function pinoLogger(logger: Logger, level: KafkaJS.logLevel): KafkaJS.Logger {
  const kafkaLogger = logger.child({ module: 'kafka-client' });
  let threshold = level;
  const log = (at: KafkaJS.logLevel, method: 'info' | 'warn' | 'error' | 'debug') => (message: string, extra?: object) => {
    if (at <= threshold) kafkaLogger[method](extra ?? {}, message);
  };
  const adapter: KafkaJS.Logger = {
    error: log(KafkaJS.logLevel.ERROR, 'error'),
    warn: log(KafkaJS.logLevel.WARN, 'warn'),
    info: log(KafkaJS.logLevel.INFO, 'info'),
    debug: log(KafkaJS.logLevel.DEBUG, 'debug'),
    namespace: () => adapter,
    setLogLevel: (to) => (threshold = to),
  };
  return adapter;
}

/**
 * The Kafka client of one process: the producers, consumers and admins it makes share its
 * connection settings and log through pino. Connections are made by what it creates.
 */
export class Kafka {
  private readonly librdkafka: KafkaJS.Kafka;
  /** The requests of every librdkafka client made from this one (hookstream_kafka_requests_total). */
  readonly requestCounts = new RequestCounts();

  constructor(private readonly settings: KafkaClientSettings) {
    sizeLibuvThreadPool(); // before any of its clients' work reaches libuv's pool
    this.librdkafka = new KafkaJS.Kafka({
      kafkaJS: {
        brokers: settings.brokers,
        clientId: settings.clientId,
        connectionTimeout: settings.connectionTimeoutMs ?? 3000,
        requestTimeout: settings.requestTimeoutMs ?? 30000,
        logger: pinoLogger(settings.logger, LOG_LEVELS[settings.kafkaLogLevel ?? 'warn']),
        logLevel: LOG_LEVELS[settings.kafkaLogLevel ?? 'warn'],
      },
      // Outside the kafkaJS block, so every client made from it (producers and consumers) has them.
      ...kafkaSecurityConfig(settings.security).librdkafka,
    });
  }

  /**
   * An idempotent acks=all producer (see ProducerOptions). librdkafka batches records sent within
   * `lingerMs` by itself. A transactional one is librdkafka's native producer (transactional-producer.ts).
   */
  producer(options: ProducerOptions = {}): Producer {
    const countRequests = this.statisticsCounter();
    const connectivity = new BrokerConnectivity();
    const onStats = (message: string) => {
      const stats = JSON.parse(message) as ClientStatistics;
      countRequests(stats);
      connectivity.update(stats);
    };
    const settings = producerSettings(options);
    // As many connection attempts as the settings allow retries (each retry one more attempt), then give up.
    const { connectionTimeoutMs = 3000, retries = 8 } = this.settings;
    const wrap = (inner: ConstructorParameters<typeof HookstreamProducer>[0]) =>
      new HookstreamProducer(inner, connectivity, this.settings.brokers, connectionTimeoutMs, connectionTimeoutMs * (retries + 1));
    if (options.transactionalId) {
      const transactionTimeoutMs = options.transactionTimeoutMs ?? 60_000;
      const native = new NativeProducer({
        ...this.connectionConfig(),
        ...settings,
        ...transactionalSettings(options.transactionalId, transactionTimeoutMs, this.settings.requestTimeoutMs ?? 30000),
        dr_cb: true,
      }) as unknown as NativeTransactionalClient;
      native.on('event.stats', (event) => onStats((event as { message: string }).message));
      native.on('event.error', clientErrorListener(this.settings.logger.child({ module: 'kafka-client' })));
      return wrap(new TransactionalProducer(native, Math.min(transactionTimeoutMs, 30_000)));
    }
    const producer = this.librdkafka.producer({
      kafkaJS: { idempotent: true, acks: -1, allowAutoTopicCreation: false },
      ...settings,
      stats_cb: (event: { message: string }) => onStats(event.message),
    });
    return wrap(producer);
  }

  /**
   * A consumer-group member (see ConsumerOptions) on librdkafka's native consumer (group-consumer.ts).
   * librdkafka heartbeats from its own thread, so a long batch does not cost the member its place
   * (only `rebalanceTimeoutMs` without taking records does).
   */
  consumer(options: ConsumerOptions): Consumer {
    const countRequests = this.statisticsCounter();
    const create = (hooks: GroupClientHooks): NativeGroupClient => {
      const native = new KafkaConsumer({
        ...this.connectionConfig(),
        ...groupMemberSettings(options),
        rebalance_cb: (error: { code: number }, assignment: TopicPartition[]) => hooks.onRebalance(error, assignment),
      }) as unknown as NativeGroupClient;
      native.on('event.stats', (event) => countRequests(JSON.parse((event as { message: string }).message) as ClientStatistics));
      return native;
    };
    return new GroupConsumer(create, {
      logger: this.settings.logger.child({ module: 'kafka-client', groupId: options.groupId }),
      maxBatchSize: options.maxBatchSize ?? 500,
      maxPollIntervalMs: maxPollIntervalOf(options),
      autoCommit: options.autoCommit ?? false,
      ...(options.onRebalance ? { onRebalance: options.onRebalance } : {}),
      ...(options.onFatal ? { onFatal: options.onFatal } : {}),
    });
  }

  /**
   * An admin (admin.ts): librdkafka's, with Platformatic's client for topic and broker configs and
   * the cluster's description. Its connect fails fast when no bootstrap broker accepts connections.
   */
  admin(options: AdminOptions = {}): Admin {
    const countRequests = this.statisticsCounter();
    return new KafkaAdmin({
      createLibrdkafkaAdmin: (config) =>
        this.librdkafka.admin({
          ...RECONNECTION,
          'statistics.interval.ms': STATISTICS_INTERVAL_MS,
          stats_cb: (event: { message: string }) => countRequests(JSON.parse(event.message) as ClientStatistics),
          ...config,
        }),
      brokers: this.settings.brokers,
      clientId: this.settings.clientId,
      connectionTimeoutMs: this.settings.connectionTimeoutMs ?? 3000,
      requestTimeoutMs: this.settings.requestTimeoutMs ?? 30000,
      retries: options.retries ?? this.settings.retries ?? 8,
      security: kafkaSecurityConfig(this.settings.security),
    });
  }

  /** A consumer outside any group, on librdkafka, for the partitions it is assigned (see PartitionConsumer). */
  partitionConsumer(options: PartitionConsumerOptions = {}): PartitionConsumer {
    const create = (config: Record<string, unknown>, topicConfig: Record<string, unknown>) =>
      new KafkaConsumer(config, topicConfig) as unknown as NativeConsumer;
    const countRequests = this.statisticsCounter();
    return createPartitionConsumer(create, this.connectionConfig(), {
      ...options,
      statsIntervalMs: options.statsIntervalMs ?? STATISTICS_INTERVAL_MS,
      onStats: (stats) => {
        countRequests(stats);
        options.onStats?.(stats);
      },
    });
  }

  /** A statistics listener that counts one new client's requests (hookstream_kafka_requests_total). */
  private statisticsCounter(): (stats: ClientStatistics) => void {
    return this.requestCounts.listener();
  }

  /** librdkafka's connection settings for this client (what the KafkaJS-style API derives from its own block). */
  private connectionConfig(): Record<string, unknown> {
    return {
      'bootstrap.servers': this.settings.brokers.join(','),
      'client.id': this.settings.clientId,
      'socket.connection.setup.timeout.ms': Math.max(1000, this.settings.connectionTimeoutMs ?? 3000),
      'socket.timeout.ms': this.settings.requestTimeoutMs ?? 30000,
      ...RECONNECTION,
      ...kafkaSecurityConfig(this.settings.security).librdkafka,
      log_level: 4,
    };
  }
}

/** The client of one process (see Kafka). */
export function createKafkaClient(settings: KafkaClientSettings): Kafka {
  return new Kafka(settings);
}

/**
 * Registers `hookstream_kafka_requests_total` on `registry`: the requests of every librdkafka client
 * `kafka` makes (request-count.ts).
 */
export function registerKafkaRequestCounter(registry: Registry, kafka: Kafka): void {
  kafka.requestCounts.register(registry);
}
