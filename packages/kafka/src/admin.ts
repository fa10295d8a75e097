/*
 * Hookstream's Admin (types.ts) on two clients. librdkafka's admin, through its KafkaJS-style API,
 * does topics, offsets, groups and records. Platformatic's pure-JavaScript client, behind
 * platformatic-admin.ts (the one module that imports it), does the four requests librdkafka's Node
 * binding lacks or gets wrong: DescribeConfigs, IncrementalAlterConfigs, the cluster's description,
 * and a group's committed offsets. It connects only when one of those is asked for, and closes with
 * the admin. Both clients' failures are one kind of error, KafkaAdminError.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { sleep } from '@hookstream/runtime';
import { asAdminError, codes, GROUP_STATES, KafkaAdminError, topicIdOf } from './admin-answers';
import { PlatformaticAdmin } from './platformatic-admin';
import { anyAccepts } from './producer';
import { isRetryableKafkaError } from './retryable';
import type { KafkaSecurityConfig } from './security';
import type { Admin, BrokerDescription, GroupDescription, PartitionMetadata, PartitionOffset, PartitionOffsets } from './types';
import type { ResourceConfigs, TopicConfig } from './types';

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
  /** Platformatic's client (platformatic-admin.ts), for the four requests librdkafka's binding lacks. */
  private readonly platformaticAdmin: PlatformaticAdmin;
  /** A connect under way: callers at the same time share it (a second librdkafka client would be left open). */
  private connecting: Promise<void> | undefined;

  constructor(private readonly settings: AdminSettings) {
    const { clientId, brokers, connectionTimeoutMs, requestTimeoutMs, security } = settings;
    this.platformaticAdmin = new PlatformaticAdmin({ clientId, brokers, connectionTimeoutMs, requestTimeoutMs, security });
  }

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
    await this.withRetries(() => this.brokerAccepts());
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
    const librdkafka = this.librdkafka;
    this.librdkafka = undefined;
    await Promise.all([librdkafka?.disconnect().catch(() => undefined), this.platformaticAdmin.close()]);
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

  /** Every partition of the topics, -1 where the group committed nothing. Asked of Platformatic's client (see committedOffsets there). */
  async fetchOffsets(options: { groupId: string; topics: string[] }): Promise<Array<{ topic: string; partitions: PartitionOffset[] }>> {
    const metadata = await this.fetchTopicMetadata({ topics: options.topics });
    const topics = metadata.map((t) => ({ topic: t.name, partitions: t.partitions.map((p) => p.partitionId) }));
    const committed = await this.withRetries(() => this.platformatic().committedOffsets(options.groupId, topics));
    return topics.map(({ topic, partitions }) => ({
      topic,
      partitions: partitions.map((partition) => {
        const offset = committed.get(`${topic}/${partition}`) ?? -1n;
        return { partition, offset: offset < 0n ? '-1' : offset.toString() };
      }),
    }));
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

  describeCluster(): Promise<{ clusterId: string; controller: number; brokers: BrokerDescription[] }> {
    return this.withRetries(() => this.platformatic().describeCluster());
  }

  /** Each topic's configs (defaults included, sensitive ones left out), by topic. */
  describeTopicConfigs(topics: string[]): Promise<Map<string, ResourceConfigs>> {
    return this.withRetries(() => this.platformatic().describeTopicConfigs(topics));
  }

  describeBrokerConfig(nodeId: number, names: string[]): Promise<ResourceConfigs> {
    return this.withRetries(() => this.platformatic().describeBrokerConfig(nodeId, names));
  }

  /** IncrementalAlterConfigs SET of each entry: the topic's other overrides stay as they are. */
  async setTopicConfigs(topic: string, entries: Array<{ name: string; value: string }>): Promise<void> {
    await this.withRetries(() => this.platformatic().setTopicConfigs(topic, entries));
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

  /** Platformatic's client, once the admin is connected (as for every request). Retries are this class's. */
  private platformatic(): PlatformaticAdmin {
    this.rdkafka();
    return this.platformaticAdmin;
  }

  /**
   * One try; a failure as a KafkaAdminError. Made only while a bootstrap broker accepts a TCP
   * connection: a request of librdkafka's admin made while no broker is up waits out its timeout
   * (30 s) reconnecting with no backoff at all, thousands of times a second (each failed connect
   * wakes the request, which asks for a connection at once, which cancels the reconnect backoff):
   * 0.8 of a core for one metadata request, and every service that measures its consumer lag spun
   * so for as long as the broker was away (test/kafka-outage.int.test.ts). Refused at once
   * instead, as retriable; the check costs one TCP handshake per admin request, which are rare.
   */
  private async attempt<T>(request: () => Promise<T>): Promise<T> {
    await this.brokerAccepts();
    try {
      return await request();
    } catch (error) {
      throw asAdminError(error);
    }
  }

  /** Resolves once a bootstrap broker accepts a TCP connection; else a retriable KafkaAdminError (ERR__TRANSPORT). */
  private brokerAccepts(): Promise<void> {
    const { brokers, connectionTimeoutMs } = this.settings;
    return anyAccepts(brokers, connectionTimeoutMs).catch((error: Error) => {
      throw new KafkaAdminError(error.message, codes.ERR__TRANSPORT, error.cause ?? error);
    });
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
