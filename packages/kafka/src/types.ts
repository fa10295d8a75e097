/*
 * Hookstream's own view of a Kafka client: the small set of types the rest of the code sees. Only
 * client.ts knows which library stands behind them (Confluent's librdkafka client, through its
 * KafkaJS-style and native APIs). The shapes follow the KafkaJS API the project was designed around.
 */

/** Record headers: text or bytes, one value or several. */
export interface IHeaders {
  [name: string]: Buffer | string | (Buffer | string)[] | undefined;
}

/** A record to write. Without `partition`, murmur2 of the key chooses it, as the Java client does. */
export interface Message {
  key?: Buffer | string | null;
  value: Buffer | string | null;
  partition?: number;
  headers?: IHeaders;
  /** Create time (epoch ms); default now. */
  timestamp?: string;
}

/** A record read. `offset` and `timestamp` (epoch ms) are decimal strings. */
export interface KafkaMessage {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  offset: string;
  headers?: IHeaders;
}

/** Where a written record landed. */
export interface RecordMetadata {
  topicName: string;
  partition: number;
  offset?: string;
  baseOffset?: string;
}

export interface TopicMessages {
  topic: string;
  messages: Message[];
}

export interface PartitionOffset {
  partition: number;
  offset: string;
}

export interface TopicOffsets {
  topic: string;
  partitions: PartitionOffset[];
}

export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface TopicPartitionOffset extends TopicPartition {
  offset: string;
}

/** A producer, idempotent (acks=all) unless made otherwise. `send` resolves once every record is acknowledged. */
export interface Producer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(record: TopicMessages): Promise<RecordMetadata[]>;
  sendBatch(batch: { topicMessages: TopicMessages[] }): Promise<RecordMetadata[]>;
  /** Transactional producers only: the producer itself, in a transaction until commit() or abort(). */
  transaction(): Promise<Transaction>;
  /** False when a write to one of `topics` could fail now: a partition's leader not connected. From memory (statistics). */
  writable(topics: readonly string[]): boolean;
  /** False when no write to `topic` could succeed now: no partition's leader connected. From memory (statistics). */
  reachable(topic: string): boolean;
}

/** A transaction in progress (a transactional producer between transaction() and commit() or abort()). */
export interface Transaction {
  send(record: TopicMessages): Promise<RecordMetadata[]>;
  sendBatch(batch: { topicMessages: TopicMessages[] }): Promise<RecordMetadata[]>;
  /** Commits the consumer's offsets with the transaction, with its group metadata (KIP-447: a fenced member's commit fails). */
  sendOffsets(args: { consumer: Consumer; topics: TopicOffsets[] }): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** One partition's records of one fetch, as a group member's `eachBatch` gets them. */
export interface Batch {
  topic: string;
  partition: number;
  messages: KafkaMessage[];
}

export interface EachBatchPayload {
  batch: Batch;
  /** Marks records up to this offset as read: the position moves past them (not a commit). */
  resolveOffset(offset: string): void;
  isRunning(): boolean;
  /** True once the partition was revoked or sought elsewhere: the batch's records are no longer this member's to handle. */
  isStale(): boolean;
}

export interface EachMessagePayload {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/** How a member hands its records over: each batch (a partition's records of a fetch) or each record. */
export interface ConsumerRunConfig {
  /** Default true: a batch that returns counts as read to its end. */
  eachBatchAutoResolve?: boolean;
  /** Partitions whose batches are handled side by side. Default 1. */
  partitionsConsumedConcurrently?: number;
  /** A rejection reads the batch again from its first record not resolved. */
  eachBatch?: (payload: EachBatchPayload) => Promise<void>;
  eachMessage?: (payload: EachMessagePayload) => Promise<void>;
}

/** A consumer-group member (made by Kafka.consumer with its ConsumerOptions). */
export interface Consumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(subscription: { topics: string[] }): Promise<void>;
  /** Starts handing records over and resolves at once; the member joins its group in the background. */
  run(config: ConsumerRunConfig): Promise<void>;
  commitOffsets(offsets: TopicPartitionOffset[]): Promise<void>;
  /** The offsets the group committed for the partitions, none from a transaction still open; a partition without one is left out. */
  committed(partitions: TopicPartition[]): Promise<TopicPartitionOffset[]>;
  /** Reads the partition from `offset` next; a batch of it in hand becomes stale. */
  seek(position: TopicPartitionOffset): void;
  pause(partitions: Array<{ topic: string; partitions?: number[] }>): void;
  resume(partitions: Array<{ topic: string; partitions?: number[] }>): void;
  paused(): TopicPartitions[];
  assignment(): TopicPartition[];
}

export interface TopicConfig {
  topic: string;
  numPartitions?: number;
  replicationFactor?: number;
  configEntries?: Array<{ name: string; value: string }>;
}

export interface PartitionMetadata {
  partitionId: number;
  leader: number;
  replicas: number[];
  isr: number[];
}

/** One partition's first offset (`low`), end (`high`) and the offset asked for. */
export interface PartitionOffsets {
  partition: number;
  offset: string;
  low: string;
  high: string;
}

export interface BrokerDescription {
  nodeId: number;
  host: string;
  port: number;
}

/** Config entries of a topic or a broker, by name. */
export type ResourceConfigs = Map<string, string>;

/** A consumer group as its coordinator describes it: its state ("Stable", "PreparingRebalance", "Empty", "Dead"…) and members. */
export interface GroupDescription {
  state: string;
  /** The broker coordinating the group (its node id). */
  coordinator: number;
  members: Array<{ memberId: string; clientId: string; assignment: TopicPartition[] }>;
}

/** Cluster administration: topics, their offsets and configs, groups' committed offsets. */
export interface Admin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  listTopics(): Promise<string[]>;
  /** Resolves true when created, false when a topic already existed. */
  createTopics(options: { topics: TopicConfig[]; timeout?: number }): Promise<boolean>;
  deleteTopics(options: { topics: string[]; timeout?: number }): Promise<void>;
  /** Each topic's partitions, and its topic id (KIP-516, base64) where the cluster has one: a topic created again has a new one. */
  fetchTopicMetadata(options: { topics: string[] }): Promise<Array<{ name: string; topicId?: string; partitions: PartitionMetadata[] }>>;
  /** Each partition's first offset and end; read_committed by default (the end is then the last stable offset). */
  fetchTopicOffsets(topic: string, options?: { readUncommitted?: boolean }): Promise<PartitionOffsets[]>;
  /** Per partition, the first offset at or after `timestamp`, or the partition's end (read_committed) where none is that recent. */
  fetchTopicOffsetsByTimestamp(topic: string, timestamp: number): Promise<PartitionOffset[]>;
  /** A group's committed offsets (-1 where none). */
  fetchOffsets(options: { groupId: string; topics: string[] }): Promise<Array<{ topic: string; partitions: PartitionOffset[] }>>;
  describeGroup(groupId: string): Promise<GroupDescription>;
  deleteTopicRecords(options: { topic: string; partitions: PartitionOffset[] }): Promise<void>;
  /** The live brokers, and the one the metadata names as controller (under KRaft, any broker). */
  describeCluster(): Promise<{ clusterId: string; controller: number; brokers: BrokerDescription[] }>;
  describeTopicConfigs(topics: string[]): Promise<Map<string, ResourceConfigs>>;
  describeBrokerConfig(nodeId: number, names: string[]): Promise<ResourceConfigs>;
  /** Sets these configs of a topic, leaving its other overrides as they are. */
  setTopicConfigs(topic: string, entries: Array<{ name: string; value: string }>): Promise<void>;
}

/** One record read by a {@link PartitionConsumer}, and where from. */
export interface ReadRecord {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/** Where a partition begins (`low`) and ends for a read_committed reader (`end`: its last stable offset). */
export interface PartitionBounds {
  partition: number;
  low: bigint;
  end: bigint;
}

/**
 * A consumer outside any group that reads the partitions it is given (read_committed unless told),
 * from the positions it is given: what a replica that keeps a whole topic as its state, or a probe
 * of where partitions end, needs. Nothing is committed.
 */
export interface PartitionConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** The topic's partition ids, from the cluster's metadata. */
  partitionsOf(topic: string): Promise<number[]>;
  /** Replaces what is read; `offset` -2 is a partition's beginning. */
  assign(positions: Array<{ topic: string; partition: number; offset: bigint }>): void;
  /** Up to `max` records, waiting at most the consume timeout for the first. */
  consume(max: number): Promise<ReadRecord[]>;
  /** Moves a partition's read position (it must be assigned). */
  seek(topic: string, partition: number, offset: bigint): Promise<void>;
  /** Each partition's first offset and its end (the last stable offset), asked of its leader. */
  bounds(topic: string, partitions: number[]): Promise<PartitionBounds[]>;
  /** Per partition, the first offset at or after `timestamp`, or the partition's end where none is that recent. */
  offsetsAt(topic: string, partitions: number[], timestamp: number): Promise<Map<number, bigint>>;
}

export interface PartitionConsumerOptions {
  /** Read records of open and aborted transactions too. Default false (read_committed). */
  readUncommitted?: boolean;
  /** Longest `consume()` and the broker's fetch wait for new records. Default 100 ms. */
  maxWaitMs?: number;
  /** Most bytes one fetch brings per partition. Default 1 MiB. */
  maxBytesPerPartition?: number;
  /** Called when a partition's read position reaches its end, with that position (markers and aborted records included). */
  onEnd?: (topic: string, partition: number, offset: bigint) => void;
  /** Called with the client's statistics (librdkafka's JSON, parsed) every `statsIntervalMs`. */
  onStats?: (stats: ClientStatistics) => void;
  statsIntervalMs?: number;
}

/** The part of librdkafka's statistics Hookstream reads (see its STATISTICS.md). */
export interface ClientStatistics {
  brokers: Record<
    string,
    {
      nodeid: number;
      state: string;
      tx: number;
      rx: number;
      req?: Record<string, number>;
      /** µs since the last byte received, -1 before any. */ rxidle: number;
    }
  >;
  topics?: Record<string, { partitions: Record<string, { leader: number; fetch_state: string; app_offset: number; ls_offset: number }> }>;
}
