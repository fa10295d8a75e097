/*
 * The one module that touches Platformatic's pure-JavaScript Kafka client, the second client beside
 * librdkafka's (client.ts): for the admin (admin.ts) only, the four requests librdkafka's Node
 * binding does not expose or gets wrong (@confluentinc/kafka-javascript 1.10.1): DescribeConfigs,
 * IncrementalAlterConfigs, the cluster's description (id, controller, live brokers), and a group's
 * committed offsets (librdkafka's ListConsumerGroupOffsets crashes the process: see committedOffsets).
 * Its failures leave here as KafkaAdminError, with Kafka's codes, like librdkafka's.
 */
import type * as Platformatic from '@platformatic/kafka' with { 'resolution-mode': 'import' };
import { codes, configsOf, findIn, KafkaAdminError, type ErrorLike } from './admin-answers';
import type { KafkaSecurityConfig } from './security';
import type { BrokerDescription, ResourceConfigs } from './types';

type PlatformaticModule = typeof Platformatic;
type SaslMechanism = NonNullable<ConstructorParameters<typeof Platformatic.Admin>[0]['sasl']>['mechanism'];

/**
 * Platformatic's client is an ES module only. A plain dynamic import loads it in Node (the services
 * run compiled CommonJS, whose `import()` TypeScript keeps as it is under module node16) and in the
 * integration tests, which jest runs with --experimental-vm-modules. The unit tests run jest without
 * that flag, where the import would fail: none of them reaches this client (the admin loads it on
 * its first request of the four).
 */
function loadPlatformatic(): Promise<PlatformaticModule> {
  return import('@platformatic/kafka');
}

export interface PlatformaticAdminSettings {
  clientId: string;
  brokers: readonly string[];
  connectionTimeoutMs: number;
  requestTimeoutMs: number;
  /** Node's TLS options and the login, from the client's security settings. */
  security?: KafkaSecurityConfig | undefined;
}

/** Platformatic's admin, made (and its module loaded) on the first request; it connects with its first request. No retries of its own: the caller's. */
export class PlatformaticAdmin {
  private module: PlatformaticModule | undefined;
  private client: Platformatic.Admin | undefined;

  constructor(private readonly settings: PlatformaticAdminSettings) {}

  /**
   * The committed offset of each of the partitions, by "topic/partition"; -1 where the group committed
   * nothing. librdkafka's ListConsumerGroupOffsets crashes the process (SIGSEGV) when the group's
   * coordinator answers NOT_COORDINATOR, as it does while a broker restarts (librdkafka#5040,
   * confluent-kafka-javascript#374: test/start-supervisor.int.test.ts, whose services must ride
   * through a broker restart, met it in the consumer-lag monitor of two of them).
   */
  async committedOffsets(groupId: string, topics: ReadonlyArray<{ topic: string; partitions: number[] }>): Promise<Map<string, bigint>> {
    const [group] = await this.request((admin) =>
      admin.listConsumerGroupOffsets({
        groups: [{ groupId, topics: topics.map((t) => ({ name: t.topic, partitionIndexes: t.partitions })) }],
        // Lag reads what is committed now; a transaction still open (policy-status-consumer) must not fail it.
        requireStable: false,
      }),
    );
    const committed = new Map<string, bigint>();
    for (const topic of group?.topics ?? []) {
      for (const p of topic.partitions) committed.set(`${topic.name}/${p.partitionIndex}`, p.committedOffset);
    }
    return committed;
  }

  async describeCluster(): Promise<{ clusterId: string; controller: number; brokers: BrokerDescription[] }> {
    const metadata = await this.request((admin) => admin.metadata({ topics: [], forceUpdate: true }));
    const brokers = [...metadata.brokers].map(([nodeId, { host, port }]) => ({ nodeId, host, port }));
    return { clusterId: metadata.id, controller: metadata.controllerId, brokers: brokers.sort((a, b) => a.nodeId - b.nodeId) };
  }

  /** Each topic's configs (defaults included, sensitive ones left out), by topic. */
  async describeTopicConfigs(topics: string[]): Promise<Map<string, ResourceConfigs>> {
    const described = await this.request((admin, { ConfigResourceTypes }) =>
      admin.describeConfigs({ resources: topics.map((resourceName) => ({ resourceType: ConfigResourceTypes.TOPIC, resourceName })) }),
    );
    return new Map(described.map((d) => [d.resourceName, configsOf(d.configs)]));
  }

  async describeBrokerConfig(nodeId: number, names: string[]): Promise<ResourceConfigs> {
    const [described] = await this.request((admin, { ConfigResourceTypes }) =>
      admin.describeConfigs({
        resources: [{ resourceType: ConfigResourceTypes.BROKER, resourceName: String(nodeId), configurationKeys: names }],
      }),
    );
    return configsOf(described?.configs ?? []);
  }

  /** IncrementalAlterConfigs SET of each entry: the topic's other overrides stay as they are. */
  async setTopicConfigs(topic: string, entries: Array<{ name: string; value: string }>): Promise<void> {
    await this.request((admin, { ConfigResourceTypes, IncrementalAlterConfigOperationTypes }) =>
      admin.incrementalAlterConfigs({
        resources: [
          {
            resourceType: ConfigResourceTypes.TOPIC,
            resourceName: topic,
            configs: entries.map(({ name, value }) => ({ name, value, configOperation: IncrementalAlterConfigOperationTypes.SET })),
          },
        ],
      }),
    );
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  /** Runs one request on the client (made on first use); its failure as a KafkaAdminError. */
  private async request<T>(send: (admin: Platformatic.Admin, module: PlatformaticModule) => Promise<T>): Promise<T> {
    const module = (this.module ??= await loadPlatformatic());
    const { tls, sasl } = this.settings.security ?? {};
    this.client ??= new module.Admin({
      clientId: this.settings.clientId,
      bootstrapBrokers: [...this.settings.brokers],
      connectTimeout: this.settings.connectionTimeoutMs,
      requestTimeout: this.settings.requestTimeoutMs,
      retries: 0,
      ...(tls ? { tls } : {}),
      ...(sasl ? { sasl: { ...sasl, mechanism: sasl.mechanism as SaslMechanism } } : {}),
    });
    try {
      return await send(this.client, module);
    } catch (error) {
      throw platformaticAdminError(error, module);
    }
  }
}

/**
 * Platformatic's failure as a KafkaAdminError: its protocol errors carry Kafka's code, its network
 * failures and timeouts become librdkafka's codes for those. Anything else (a bug) is left as it is.
 */
function platformaticAdminError(error: unknown, module: PlatformaticModule): unknown {
  if (error instanceof KafkaAdminError) return error;
  const message = (e: ErrorLike) => String(e.message);
  const isPlatformatic = (e: ErrorLike) => typeof e.code === 'string' && e.code.startsWith('PLT_KFK');
  if (!findIn(error, isPlatformatic)) return error;
  const protocol = findIn(error, (e) => typeof e.apiCode === 'number');
  if (protocol) return new KafkaAdminError(message(protocol), protocol.apiCode as number, error);
  const unknownTopic = findIn(error, (e) => /^Unknown topic /.test(String(e.message)));
  if (unknownTopic) return new KafkaAdminError(message(unknownTopic), codes.ERR_UNKNOWN_TOPIC_OR_PART, error);
  const timeout = findIn(error, (e) => e instanceof module.TimeoutError); // whose code says "network"
  if (timeout) return new KafkaAdminError(message(timeout), codes.ERR__TIMED_OUT, error);
  const network = findIn(error, (e) => e.code === 'PLT_KFK_NETWORK');
  if (network) return new KafkaAdminError(message(network), codes.ERR__TRANSPORT, error);
  return new KafkaAdminError(message(error as ErrorLike), codes.ERR_UNKNOWN, error);
}
