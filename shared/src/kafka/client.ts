/*
 * The one module, with admin.ts, that imports the Kafka client libraries: Confluent's librdkafka
 * client, its KafkaJS-style API for producers, consumer groups and the admin, its native consumer
 * for the group-less readers (the admin has Platformatic's client beside it for what librdkafka's
 * binding lacks, see admin.ts). The rest of the code sees Hookstream's own types (types.ts).
 */
import { KafkaConsumer, KafkaJS } from '@confluentinc/kafka-javascript';
import type { Logger } from 'pino';
import { KafkaAdmin } from './admin';
import { BrokerConnectivity } from './broker-connectivity';
import { HookstreamProducer } from './producer';
import { createPartitionConsumer, type NativeConsumer } from './partition-consumer';
import { countLibrdkafkaRequests } from './request-count';
import { kafkaSecurityConfig, type KafkaSecurity } from './security';
import type { Admin, ClientStatistics, Consumer, PartitionConsumer, PartitionConsumerOptions, Producer, TopicPartition } from './types';

/** How often each librdkafka client reports its statistics (requests counted, readers' currency). */
const STATISTICS_INTERVAL_MS = 1000;
/** Settings librdkafka takes that the binding's types do not list. */
const LIBRDKAFKA_ONLY_SETTINGS: Record<string, unknown> = {
  // A connection to every broker, kept up (reconnected at once) even while nothing is sent: the
  // writes refused while a broker is away would otherwise never make librdkafka reconnect, and
  // its return would go unseen (Producer.reachable).
  'enable.sparse.connections': false,
};
/** Producers' statistics also tell whether a write could succeed now (Producer.writable). */
const PRODUCER_STATISTICS_INTERVAL_MS = 250;
/** librdkafka's code for a rebalance that assigns partitions (the other kind revokes them). */
const ASSIGN_PARTITIONS = KafkaJS.ErrorCodes.ERR__ASSIGN_PARTITIONS;
/** Numbers the librdkafka clients of this process, for their request counts. */
let librdkafkaClients = 0;

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

/** A consumer-group member's settings. */
export interface ConsumerOptions {
  groupId: string;
  /** Read records of open and aborted transactions too. Default false (read_committed). */
  readUncommitted?: boolean;
  /** Where a partition the group has no offset for is read from. Default false (its end). */
  fromBeginning?: boolean;
  /** Commit read positions every few seconds by itself. Default false: the caller commits. */
  autoCommit?: boolean;
  /** Default 10 s. */
  sessionTimeoutMs?: number;
  /** Default 1 s. */
  heartbeatIntervalMs?: number;
  /** How long a rebalance waits for members, and the longest a member may go between polls. Default 300 s. */
  rebalanceTimeoutMs?: number;
  /** Longest a fetch waits on the broker for `minBytes`. Default 100 ms. */
  maxWaitMs?: number;
  minBytes?: number;
  maxBytesPerPartition?: number;
  /** Most records of one partition an `eachBatch` call gets. Default 500. */
  maxBatchSize?: number;
  /**
   * Called when the group assigns this member partitions (a join; `partitions` may be empty) or
   * revokes them (a rebalance begins); the rebalance waits for a returned promise.
   */
  onRebalance?: (event: 'assigned' | 'revoked', partitions: TopicPartition[]) => void | Promise<void>;
}

/** An admin's settings. */
export interface AdminOptions {
  /** Retries of its connect and of a request that can be repeated safely (0: one try, for health checks). Default the client's. */
  retries?: number;
}

/** What a producer is for; every producer is idempotent with acks=all and the Java client's murmur2 partitioner. */
export interface ProducerOptions {
  /** Makes it transactional under this id: opening it fences the id's earlier holders and aborts what they left open. */
  transactionalId?: string;
  /** Longest a record waits for companions before its batch is sent. Default 2 ms. */
  lingerMs?: number;
  /** Longest a record may take to be acknowledged, retries included, before its send fails. Default 30 s. */
  deliveryTimeoutMs?: number;
  /** Transactional producers: how long the coordinator lets a transaction stay open before aborting it. Default 60 s. */
  transactionTimeoutMs?: number;
  /** Largest record batch it builds (the topics' `max.message.bytes` when that is lower than the client's 1 MB). */
  maxBatchBytes?: number;
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

  constructor(private readonly settings: KafkaClientSettings) {
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

  /** An idempotent acks=all producer (see ProducerOptions). librdkafka batches records sent within `lingerMs` by itself. */
  producer(options: ProducerOptions = {}): Producer {
    const countRequests = this.statisticsCounter();
    const connectivity = new BrokerConnectivity();
    const producer = this.librdkafka.producer({
      kafkaJS: {
        idempotent: true,
        acks: -1,
        allowAutoTopicCreation: false,
        ...(options.transactionalId ? { transactionalId: options.transactionalId } : {}),
        ...(options.transactionTimeoutMs ? { transactionTimeout: options.transactionTimeoutMs } : {}),
      },
      ...(options.maxBatchBytes ? { 'batch.size': options.maxBatchBytes } : {}),
      ...this.reconnection(),
      // Keys on the partitions the Java client's default partitioner picks (the KafkaJS-style API's default too; stated so nothing changes it).
      partitioner: 'murmur2_random',
      'linger.ms': options.lingerMs ?? 2,
      'message.timeout.ms': options.deliveryTimeoutMs ?? 30_000,
      // Retried until the delivery timeout, as the Java client does (librdkafka's own default).
      retries: 2_147_483_647,
      'retry.backoff.ms': 50,
      'retry.backoff.max.ms': 1000,
      // Four times as often as other clients: writable() follows a broker's death and return from these.
      'statistics.interval.ms': PRODUCER_STATISTICS_INTERVAL_MS,
      ...LIBRDKAFKA_ONLY_SETTINGS,
      stats_cb: (event: { message: string }) => {
        const stats = JSON.parse(event.message) as ClientStatistics;
        countRequests(stats);
        connectivity.update(stats);
      },
    });
    // As many connection attempts as the settings allow retries (each retry one more attempt), then give up.
    const { connectionTimeoutMs = 3000, retries = 8 } = this.settings;
    const tcpTimeoutMs = connectionTimeoutMs;
    return new HookstreamProducer(producer, connectivity, this.settings.brokers, tcpTimeoutMs, connectionTimeoutMs * (retries + 1));
  }

  /**
   * A consumer-group member (see ConsumerOptions). librdkafka heartbeats from its own thread, so a
   * long batch does not cost the member its place (only `rebalanceTimeoutMs` without a poll does).
   */
  consumer(options: ConsumerOptions): Consumer {
    const countRequests = this.statisticsCounter();
    const consumer = this.librdkafka.consumer({
      kafkaJS: {
        groupId: options.groupId,
        readUncommitted: options.readUncommitted ?? false,
        fromBeginning: options.fromBeginning ?? false,
        autoCommit: options.autoCommit ?? false,
        allowAutoTopicCreation: false,
        sessionTimeout: options.sessionTimeoutMs ?? 10_000,
        heartbeatInterval: options.heartbeatIntervalMs ?? 1000,
        ...(options.rebalanceTimeoutMs ? { rebalanceTimeout: options.rebalanceTimeoutMs } : {}),
        maxWaitTimeInMs: options.maxWaitMs ?? 100,
        ...(options.minBytes ? { minBytes: options.minBytes } : {}),
        ...(options.maxBytesPerPartition ? { maxBytesPerPartition: options.maxBytesPerPartition } : {}),
      },
      ...this.reconnection(),
      // eachBatch hands over at most this many records of a partition at a time (the client's default is 32).
      'js.consumer.max.batch.size': options.maxBatchSize ?? 500,
      'statistics.interval.ms': STATISTICS_INTERVAL_MS,
      stats_cb: (event: { message: string }) => countRequests(JSON.parse(event.message) as ClientStatistics),
      rebalance_cb: (error: { code: number }, assignment: TopicPartition[]) => {
        const assigned = error.code === ASSIGN_PARTITIONS;
        return options.onRebalance?.(assigned ? 'assigned' : 'revoked', assignment);
      },
    });
    return consumer;
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
          ...this.reconnection(),
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
    const client = `${this.settings.clientId}#${++librdkafkaClients}`;
    return (stats) => countLibrdkafkaRequests(client, stats.brokers);
  }

  /** Reconnect quickly after a broker comes back: at most a second between tries. */
  private reconnection(): Record<string, number> {
    return { 'reconnect.backoff.ms': 50, 'reconnect.backoff.max.ms': 1000 };
  }

  /** librdkafka's connection settings for this client (what the KafkaJS-style API derives from its own block). */
  private connectionConfig(): Record<string, unknown> {
    return {
      'bootstrap.servers': this.settings.brokers.join(','),
      'client.id': this.settings.clientId,
      'socket.connection.setup.timeout.ms': Math.max(1000, this.settings.connectionTimeoutMs ?? 3000),
      'socket.timeout.ms': this.settings.requestTimeoutMs ?? 30000,
      ...this.reconnection(),
      ...kafkaSecurityConfig(this.settings.security).librdkafka,
      log_level: 4,
    };
  }
}

/** The client of one process (see Kafka). */
export function createKafkaClient(settings: KafkaClientSettings): Kafka {
  return new Kafka(settings);
}
