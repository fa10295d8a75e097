/**
 * kafkajs 2.2.4's producer send (src/producer/sendMessages.js, MIT), with its retry fixed so
 * that a record acknowledged as written has been written. Two faults are fixed.
 *
 * Moved partitions (tulios/kafkajs#1303, open; PR #1798 unmerged): a send's records go to every
 * partition leader they map to, one Produce request per broker, and kafkajs remembers which
 * *brokers* answered. When one broker dies, the retry refreshes the metadata, and the dead broker's
 * partitions now have leaders among the brokers that already answered: those brokers count as
 * done, so the moved partitions' records are never sent, and the send resolves as if they were
 * written. It shows only on a cluster; the 3-broker SIGKILL test met it. Here the answered
 * *partitions* are remembered, and a retry sends every partition not answered yet to its leader
 * now. Records are assigned to partitions once, so a record without a key cannot move between
 * attempts either.
 *
 * Handed-back sequence numbers: kafkajs gives a failed request's sequence numbers back, though the
 * broker may have written it, so the next records can be taken for a duplicate and dropped. Here a
 * write keeps its numbers across retries, and a producer whose send gave up with a write in doubt
 * takes a new producer id before its next send (producer-sequences.ts says why in full).
 *
 * An attempt also ends only when all of its requests have: a retry never overtakes a request
 * still in flight. The rest (locks, transactions, what is retried) is kafkajs's code unchanged.
 */

import { producerSequencesOf, type SequencedProducer } from './producer-sequences';

/** What this code uses of kafkajs's (internal) Cluster, Broker, EOS manager and retrier. */
interface Broker {
  nodeId: number;
  produce(request: object): Promise<{ topics: Array<{ topicName: string; partitions: object[] }> }>;
}
interface Cluster {
  refreshMetadataIfNecessary(): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number }>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(options: { nodeId: string }): Promise<Broker>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  removeBroker(options: { host: string; port: number }): void;
  isConnected(): boolean;
  connect(): Promise<void>;
}
interface EosManager extends SequencedProducer {
  acquireBrokerLock(broker: Broker): Promise<void>;
  releaseBrokerLock(broker: Broker): Promise<void>;
  addPartitionsToTransaction(topicData: object[]): Promise<void>;
  getTransactionalId(): string;
  getProducerId(): number;
  getProducerEpoch(): number;
  getSequence(topic: string, partition: number): number;
  updateSequence(topic: string, partition: number, increment: number): void;
}
type Retrier = <T>(fn: (bail: (error: unknown) => void, retryCount: number, retryTime: number) => Promise<T>) => Promise<T>;
interface Logger {
  debug(message: string, extra?: object): void;
  error(message: string, extra?: object): void;
}
type Message = object;
interface TopicMessages {
  topic: string;
  messages: Message[];
}
type KafkaError = Error & { retriable?: boolean; host: string; port: number };

// require(): kafkajs's internals have no typed entry point. None of these loads the producer.
const { KafkaJSMetadataNotLoaded } = require('kafkajs/src/errors') as { KafkaJSMetadataNotLoaded: new (message: string) => Error };
const { staleMetadata } = require('kafkajs/src/protocol/error') as { staleMetadata: (error: unknown) => boolean };
const groupMessagesPerPartition = require('kafkajs/src/producer/groupMessagesPerPartition') as (options: {
  topic: string;
  partitionMetadata: object[];
  messages: Message[];
  partitioner: unknown;
}) => Record<string, Message[]>;

/** A partition's records, their sequence numbers once given, and, once written, the broker's answer for it. */
interface PartitionWrite {
  topic: string;
  partition: number;
  messages: Message[];
  /** The first sequence number, given on the first attempt and kept by every retry under the same producer id and epoch. */
  sequence?: { first: number; producerId: number; epoch: number };
  response?: object;
}

/** kafkajs's `createSendMessages`, fixed as described above; same options, same result. */
export function createSendMessages({
  logger,
  cluster,
  partitioner,
  eosManager,
  retrier,
}: {
  logger: Logger;
  cluster: Cluster;
  partitioner: unknown;
  eosManager: EosManager;
  retrier: Retrier;
}) {
  return async ({
    acks,
    timeout,
    compression,
    topicMessages,
  }: {
    acks: number;
    timeout: number;
    compression: number;
    topicMessages: TopicMessages[];
  }) => {
    /** By topic: its records per partition, assigned on the first attempt that has the topic's metadata. */
    const writes = new Map<string, PartitionWrite[]>();

    const assignPartitions = () => {
      for (const { topic, messages } of topicMessages) {
        if (writes.has(topic)) continue;
        const partitionMetadata = cluster.findTopicPartitionMetadata(topic);
        if (partitionMetadata.length === 0) {
          logger.debug('Producing to topic without metadata', { topic });
          throw new KafkaJSMetadataNotLoaded('Producing to topic without metadata');
        }
        const perPartition = groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner });
        writes.set(
          topic,
          Object.entries(perPartition).map(([partition, records]) => ({ topic, partition: Number(partition), messages: records })),
        );
      }
    };

    /** The partitions not written yet, grouped by their leader now. */
    const pendingPerLeader = async (): Promise<Map<Broker, PartitionWrite[]>> => {
      const perLeader = new Map<Broker, PartitionWrite[]>();
      for (const [topic, partitions] of writes) {
        const pending = partitions.filter((w) => w.response === undefined);
        if (pending.length === 0) continue;
        const leaders = cluster.findLeaderForPartitions(
          topic,
          pending.map((w) => w.partition),
        );
        const led = new Set(Object.values(leaders).flat());
        // kafkajs skips a partition missing from the metadata; here it is retried, never dropped.
        if (pending.some((w) => !led.has(w.partition))) throw new KafkaJSMetadataNotLoaded(`Partition of ${topic} without metadata`);
        for (const [nodeId, ids] of Object.entries(leaders)) {
          const broker = await cluster.findBroker({ nodeId });
          const list = perLeader.get(broker) ?? [];
          list.push(...pending.filter((w) => ids.includes(w.partition)));
          perLeader.set(broker, list);
        }
      }
      return perLeader;
    };

    const produceTo = async (broker: Broker, assigned: PartitionWrite[]) => {
      await eosManager.acquireBrokerLock(broker);
      try {
        // An earlier attempt's request to this broker may have finished while this one waited for the lock.
        const partitions = assigned.filter((w) => w.response === undefined);
        if (partitions.length === 0) return;
        const producerId = eosManager.getProducerId();
        const epoch = eosManager.getProducerEpoch();
        for (const w of partitions) {
          if (w.sequence?.producerId !== producerId || w.sequence.epoch !== epoch) {
            w.sequence = { first: eosManager.getSequence(w.topic, w.partition), producerId, epoch };
            eosManager.updateSequence(w.topic, w.partition, w.messages.length);
          }
        }
        const topicData = [...new Set(partitions.map((w) => w.topic))].map((topic) => ({
          topic,
          partitions: partitions
            .filter((w) => w.topic === topic)
            .map((w) => ({ partition: w.partition, firstSequence: w.sequence!.first, messages: w.messages })),
        }));
        if (eosManager.isTransactional()) await eosManager.addPartitionsToTransaction(topicData);
        // No numbers are handed back on failure: the broker may have written the request (see above).
        const response = await broker.produce({
          transactionalId: eosManager.isTransactional() ? eosManager.getTransactionalId() : undefined,
          producerId,
          producerEpoch: epoch,
          acks,
          timeout,
          compression,
          topicData,
        });
        for (const w of partitions) {
          const answer = response?.topics
            .find((t) => t.topicName === w.topic)
            ?.partitions.find((p) => (p as { partition: number }).partition === w.partition);
          w.response = { topicName: w.topic, partition: w.partition, ...answer };
        }
      } finally {
        await eosManager.releaseBrokerLock(broker);
      }
    };

    const attempt = () =>
      retrier(async (bail, retryCount, retryTime) => {
        await cluster.addMultipleTargetTopics(topicMessages.map(({ topic }) => topic));
        try {
          await cluster.refreshMetadataIfNecessary();
          assignPartitions();
          const requests = [...(await pendingPerLeader())].map(([broker, partitions]) => produceTo(broker, partitions));
          const failed = (await Promise.allSettled(requests)).find((outcome) => outcome.status === 'rejected');
          if (failed) throw failed.reason;
          // kafkajs's result: one entry per partition written (none with acks 0).
          return acks === 0 ? [] : [...writes.values()].flat().map((w) => w.response!);
        } catch (caught) {
          const e = caught as KafkaError;
          if (e.name === 'KafkaJSConnectionClosedError') cluster.removeBroker({ host: e.host, port: e.port });
          if (!cluster.isConnected()) {
            logger.debug(`Cluster has disconnected, reconnecting: ${e.message}`, { retryCount, retryTime });
            await cluster.connect();
            await cluster.refreshMetadata();
            throw e;
          }
          // The metadata may be stale (a leader moved, partitions were added): refresh and retry.
          if (
            staleMetadata(e) ||
            e.name === 'KafkaJSMetadataNotLoaded' ||
            e.name === 'KafkaJSConnectionError' ||
            e.name === 'KafkaJSConnectionClosedError' ||
            (e.name === 'KafkaJSProtocolError' && e.retriable)
          ) {
            logger.error(`Failed to send messages: ${e.message}`, { retryCount, retryTime });
            await cluster.refreshMetadata();
            throw e;
          }
          logger.error(`${e.message}`, { retryCount, retryTime });
          if (e.retriable) throw e;
          bail(e);
          return [];
        }
      });

    const sequences = producerSequencesOf(eosManager);
    await sequences.beginSend();
    let written = false;
    try {
      const result = await attempt();
      written = true;
      return result;
    } finally {
      const inDoubt = [...writes.values()].flat().some((w) => w.sequence !== undefined && w.response === undefined);
      sequences.endSend(!written && inDoubt);
    }
  };
}
