/*
 * Hookstream's Admin (types.ts) on two clients. librdkafka's admin, through its KafkaJS-style API,
 * does topics, offsets, groups and records. Platformatic's pure-JavaScript client does the three
 * requests librdkafka's Node binding does not expose in either of its APIs (@confluentinc/
 * kafka-javascript 1.10.1): DescribeConfigs, IncrementalAlterConfigs and the cluster's description
 * (id, controller, live brokers); and a group's committed offsets, which librdkafka's admin gets
 * wrong in a way that kills the process (see fetchOffsets). It connects only when one of those is
 * asked for, and closes with the admin. Both clients' failures are one kind of error, KafkaAdminError.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import type * as Platformatic from '@platformatic/kafka' with { 'resolution-mode': 'import' };
import { sleep } from '@hookstream/runtime';
import { asAdminError, codes, configsOf, GROUP_STATES, KafkaAdminError, platformatic, topicIdOf } from './admin-answers';
import { anyAccepts } from './producer';
import { isRetryableKafkaError } from './retryable';
import type { KafkaSecurityConfig } from './security';
import type { Admin, BrokerDescription, GroupDescription, PartitionMetadata, PartitionOffset, PartitionOffsets } from './types';
import type { ResourceConfigs, TopicConfig } from './types';

type PlatformaticAdmin = Platformatic.Admin;
type SaslMechanism = NonNullable<ConstructorParameters<typeof Platformatic.Admin>[0]['sasl']>['mechanism'];

export interface AdminSettings {
  /**
   * A new librdkafka admin with the client's connection settings and these properties of librdkafka's
   * (one per connect: it cannot connect again).
   */
  createLibrdkafkaAdmin: (config: Record<string, unknown>) => KafkaJS.Admin;
  brokers: readonly string[];
  clientId: string;
  connectionTimeoutMs: number;
  /** Longest one request may take (librdkafka's requests that read offsets share it). */
  requestTimeoutMs: number;
  /**
   * Retries of a connect and of a request that can be repeated safely, on a failure that may pass
   * (0 tries once). Creating and deleting topics are tried once.
   */
  retries: number;
  /** TLS and SASL to the brokers: librdkafka's properties, and Node's TLS options and the login for Platformatic's client. */
  security?: KafkaSecurityConfig;
}

/** Longest wait between two tries. */
const MAX_RETRY_DELAY_MS = 1000;
/** How long setTopicConfigs waits for its change to show: 50 × 100 ms. */
const CONFIG_VISIBLE_TRIES = 50;
const CONFIG_VISIBLE_POLL_MS = 100;

/** Hookstream's Admin (see the header). */
export class KafkaAdmin implements Admin {
  private librdkafka: KafkaJS.Admin | undefined;
  private configs: PlatformaticAdmin | undefined;
  /** A connect under way: callers at the same time share it (a second librdkafka client would be left open). */
  private connecting: Promise<void> | undefined;

  constructor(private readonly settings: AdminSettings) {}

  /**
   * librdkafka's admin makes no request when it connects, and its first request to a broker that
   * is not there would wait out its timeout: so a connect first checks that a bootstrap broker
   * accepts a TCP connection within the connection timeout (retried as the settings allow), and
   * fails fast when none does.
   */
  async connect(): Promise<void> {
    if (this.librdkafka) return;
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<void> {
    const { brokers, connectionTimeoutMs } = this.settings;
    await this.withRetries(() =>
      anyAccepts(brokers, connectionTimeoutMs).catch((error: Error) => {
        throw new KafkaAdminError(error.message, codes.ERR__TRANSPORT, error.cause ?? error);
      }),
    );
    const admin = this.settings.createLibrdkafkaAdmin({ ...this.settings.security?.librdkafka });
    await admin.connect().catch(async (error: unknown) => {
      // A client whose connect failed may still run inside librdkafka and keep the process alive.
      await admin.disconnect().catch(() => undefined);
      throw asAdminError(error);
    });
    this.librdkafka = admin;
  }

  /** Closes both clients; the admin may connect again. */
  async disconnect(): Promise<void> {
    await this.connecting?.catch(() => undefined);
    const [librdkafka, configs] = [this.librdkafka, this.configs];
    this.librdkafka = undefined;
    this.configs = undefined;
    await Promise.all([librdkafka?.disconnect().catch(() => undefined), configs?.close().catch(() => undefined)]);
  }

  listTopics(): Promise<string[]> {
    return this.withRetries(() => this.rdkafka().listTopics({ timeout: this.settings.requestTimeoutMs }));
  }

  /**
   * Creates the topics and waits until every partition of each has a leader; a
   * topic that already existed makes it resolve false. Tried once: after a lost answer the topic may exist.
   */
  async createTopics(options: { topics: TopicConfig[]; timeout?: number }): Promise<boolean> {
    const timeout = options.timeout ?? this.settings.requestTimeoutMs;
    const created = await this.attempt(() => this.rdkafka().createTopics({ topics: options.topics, timeout }));
    const topics = options.topics.map((t) => t.topic);
    const deadline = Date.now() + timeout;
    for (;;) {
      const led = await this.rdkafka()
        .fetchTopicMetadata({ topics, timeout })
        .then(
          (found) =>
            found.length === topics.length && found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)),
        )
        .catch(() => false); // a broker may not know a topic it has just created
      if (led) return created;
      if (Date.now() >= deadline) {
        throw new KafkaAdminError(`the partitions of ${topics.join(', ')} had no leaders within ${timeout} ms`, codes.ERR__TIMED_OUT);
      }
      await sleep(100);
    }
  }

  /** Tried once: after a lost answer the topic may be gone. */
  async deleteTopics(options: { topics: string[]; timeout?: number }): Promise<void> {
    const timeout = options.timeout ?? this.settings.requestTimeoutMs;
    await this.attempt(() => this.rdkafka().deleteTopics({ topics: options.topics, timeout }));
  }

  async fetchTopicMetadata(options: {
    topics: string[];
  }): Promise<Array<{ name: string; topicId?: string; partitions: PartitionMetadata[] }>> {
    const found = await this.withRetries(() =>
      this.rdkafka().fetchTopicMetadata({ topics: options.topics, timeout: this.settings.requestTimeoutMs }),
    );
    return found.map((topic) => ({
      name: topic.name,
      ...topicIdOf(topic.topicId),
      partitions: topic.partitions.map((p) => ({ partitionId: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr })),
    }));
  }

  async fetchTopicOffsets(topic: string, options: { readUncommitted?: boolean } = {}): Promise<PartitionOffsets[]> {
    // librdkafka's default is read_uncommitted; Hookstream's readers and lag are read_committed.
    const isolationLevel = options.readUncommitted ? KafkaJS.IsolationLevel.READ_UNCOMMITTED : KafkaJS.IsolationLevel.READ_COMMITTED;
    const offsets = await this.withRetries(() =>
      this.rdkafka().fetchTopicOffsets(topic, { isolationLevel, timeout: this.settings.requestTimeoutMs }),
    );
    return offsets.map(({ partition, offset, low, high }) => ({ partition, offset, low, high }));
  }

  async fetchTopicOffsetsByTimestamp(topic: string, timestamp: number): Promise<PartitionOffset[]> {
    const isolationLevel = KafkaJS.IsolationLevel.READ_COMMITTED;
    const offsets = await this.withRetries(() =>
      this.rdkafka().fetchTopicOffsetsByTimestamp(topic, timestamp, { isolationLevel, timeout: this.settings.requestTimeoutMs }),
    );
    return offsets.map(({ partition, offset }) => ({ partition, offset }));
  }

  /**
   * Every partition of the topics, -1 where the group committed nothing. Asked of Platformatic's
   * client: librdkafka's ListConsumerGroupOffsets crashes the process (SIGSEGV) when the group's
   * coordinator answers NOT_COORDINATOR, as it does while a broker restarts (librdkafka#5040,
   * confluent-kafka-javascript#374: test/start-supervisor.int.test.ts, whose services must ride through a broker restart,
   * met it in the consumer-lag monitor of two of them).
   */
  async fetchOffsets(options: { groupId: string; topics: string[] }): Promise<Array<{ topic: string; partitions: PartitionOffset[] }>> {
    const metadata = await this.fetchTopicMetadata({ topics: options.topics });
    const topics = metadata.map((t) => ({ topic: t.name, partitions: t.partitions.map((p) => p.partitionId) }));
    const [group] = await this.withRetries(() =>
      this.platformatic().listConsumerGroupOffsets({
        groups: [{ groupId: options.groupId, topics: topics.map((t) => ({ name: t.topic, partitionIndexes: t.partitions })) }],
        // Lag reads what is committed now; a transaction still open (policy-status-consumer) must not fail it.
        requireStable: false,
      }),
    );
    return topics.map(({ topic, partitions }) => {
      const found = group?.topics.find((t) => t.name === topic)?.partitions ?? [];
      return {
        topic,
        partitions: partitions.map((partition) => {
          const offset = found.find((p) => p.partitionIndex === partition)?.committedOffset ?? -1n;
          return { partition, offset: offset < 0n ? '-1' : offset.toString() };
        }),
      };
    });
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const { groups } = await this.withRetries(() => this.rdkafka().describeGroups([groupId], { timeout: this.settings.requestTimeoutMs }));
    const group = groups[0];
    if (!group) throw new KafkaAdminError(`no description of group ${groupId}`, codes.ERR_UNKNOWN);
    if (group.error) throw asAdminError(group.error);
    return {
      state: GROUP_STATES[group.state] ?? 'Unknown',
      coordinator: group.coordinator?.id ?? -1,
      members: group.members.map((m) => ({
        memberId: m.memberId,
        clientId: m.clientId,
        assignment: (m.assignment?.topicPartitions ?? []).map(({ topic, partition }) => ({ topic, partition })),
      })),
    };
  }

  /** Deletes each partition's records before its offset (-1: all). */
  async deleteTopicRecords(options: { topic: string; partitions: PartitionOffset[] }): Promise<void> {
    await this.withRetries(() =>
      this.rdkafka().deleteTopicRecords({ topic: options.topic, partitions: options.partitions, timeout: this.settings.requestTimeoutMs }),
    );
  }

  async describeCluster(): Promise<{ clusterId: string; controller: number; brokers: BrokerDescription[] }> {
    const metadata = await this.withRetries(() => this.platformatic().metadata({ topics: [], forceUpdate: true }));
    const brokers = [...metadata.brokers].map(([nodeId, { host, port }]) => ({ nodeId, host, port }));
    return { clusterId: metadata.id, controller: metadata.controllerId, brokers: brokers.sort((a, b) => a.nodeId - b.nodeId) };
  }

  /** Each topic's configs (defaults included, sensitive ones left out), by topic. */
  async describeTopicConfigs(topics: string[]): Promise<Map<string, ResourceConfigs>> {
    const resourceType = platformatic().ConfigResourceTypes.TOPIC;
    const described = await this.withRetries(() =>
      this.platformatic().describeConfigs({ resources: topics.map((resourceName) => ({ resourceType, resourceName })) }),
    );
    return new Map(described.map((d) => [d.resourceName, configsOf(d.configs)]));
  }

  async describeBrokerConfig(nodeId: number, names: string[]): Promise<ResourceConfigs> {
    const resourceType = platformatic().ConfigResourceTypes.BROKER;
    const [described] = await this.withRetries(() =>
      this.platformatic().describeConfigs({ resources: [{ resourceType, resourceName: String(nodeId), configurationKeys: names }] }),
    );
    return configsOf(described?.configs ?? []);
  }

  /** IncrementalAlterConfigs SET of each entry: the topic's other overrides stay as they are. */
  async setTopicConfigs(topic: string, entries: Array<{ name: string; value: string }>): Promise<void> {
    const { ConfigResourceTypes, IncrementalAlterConfigOperationTypes } = platformatic();
    const configs = entries.map(({ name, value }) => ({ name, value, configOperation: IncrementalAlterConfigOperationTypes.SET }));
    await this.withRetries(() =>
      this.platformatic().incrementalAlterConfigs({
        resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: topic, configs }],
      }),
    );
    // The brokers apply an accepted change from the cluster's metadata log a moment later: this
    // resolves once it is visible, so the caller (and its next describe) reads what it wrote.
    for (let tries = 0; tries < CONFIG_VISIBLE_TRIES; tries++) {
      const now = (await this.describeTopicConfigs([topic])).get(topic);
      if (entries.every(({ name, value }) => now?.get(name) === value)) return;
      await sleep(CONFIG_VISIBLE_POLL_MS);
    }
  }

  private rdkafka(): KafkaJS.Admin {
    if (!this.librdkafka) throw new KafkaAdminError('the admin is not connected', codes.ERR__STATE);
    return this.librdkafka;
  }

  /** Platformatic's client, made on first use (it connects with its first request). Retries are this class's. */
  private platformatic(): PlatformaticAdmin {
    this.rdkafka(); // connected first, as for every request
    const { tls, sasl } = this.settings.security ?? {};
    this.configs ??= new (platformatic().Admin)({
      clientId: this.settings.clientId,
      bootstrapBrokers: [...this.settings.brokers],
      connectTimeout: this.settings.connectionTimeoutMs,
      requestTimeout: this.settings.requestTimeoutMs,
      retries: 0,
      ...(tls ? { tls } : {}),
      ...(sasl ? { sasl: { ...sasl, mechanism: sasl.mechanism as SaslMechanism } } : {}),
    });
    return this.configs;
  }

  /** One try; a failure as a KafkaAdminError. */
  private async attempt<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw asAdminError(error);
    }
  }

  /** Tries again, after 100 ms doubling up to a second, while the failure may pass and retries are left. */
  private async withRetries<T>(request: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(request);
      } catch (error) {
        if (attempt >= this.settings.retries || !isRetryableKafkaError(error)) throw error;
        await sleep(Math.min(MAX_RETRY_DELAY_MS, 100 * 2 ** attempt));
      }
    }
  }
}
