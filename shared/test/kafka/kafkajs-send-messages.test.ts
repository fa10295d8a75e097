import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Partitioners } from 'kafkajs';
import { createSendMessages } from '../../src/kafka/kafkajs-send-messages';

const { KafkaJSConnectionError } = require('kafkajs/src/errors') as { KafkaJSConnectionError: new (message: string) => Error };
const createRetry = require('kafkajs/src/retry') as (options: object) => never;
/** kafkajs's own send function (jest loads kafkajs's modules afresh, without the preload). */
const kafkajsSendMessages = require('kafkajs/src/producer/sendMessages') as typeof createSendMessages;

interface ProduceRequest {
  topicData: Array<{ topic: string; partitions: Array<{ partition: number; messages: unknown[]; firstSequence: number }> }>;
}

/**
 * Two brokers; partition 0 led by broker 1, partition 1 by broker 2. Broker 1 dies during the first
 * send (its request fails with a connection error); after the metadata refresh that follows,
 * partition 0 is led by broker 2, which has already written partition 1.
 */
function brokerDiesMidSend() {
  const leaders: Record<number, number> = { 0: 1, 1: 2 };
  const requests: Array<{ nodeId: number; request: ProduceRequest }> = [];
  const broker = (nodeId: number) => ({
    nodeId,
    produce: async (request: ProduceRequest) => {
      requests.push({ nodeId, request });
      if (nodeId === 1) throw new KafkaJSConnectionError('Connection error: connect ECONNREFUSED');
      return {
        topics: request.topicData.map((t) => ({
          topicName: t.topic,
          partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode: 0, baseOffset: '0' })),
        })),
      };
    },
  });
  const brokers = { 1: broker(1), 2: broker(2) };
  const sequences = new Map<number, number>();
  const cluster = {
    refreshMetadataIfNecessary: async () => undefined,
    refreshMetadata: async () => {
      leaders[0] = 2; // broker 1 is gone: its partition moved to broker 2
    },
    findTopicPartitionMetadata: () => [0, 1].map((partitionId) => ({ partitionId, leader: leaders[partitionId] })),
    findLeaderForPartitions: (_topic: string, partitions: number[]) => {
      const result: Record<string, number[]> = {};
      for (const p of partitions) (result[leaders[p]!] ??= []).push(Number(p));
      return result;
    },
    findBroker: async ({ nodeId }: { nodeId: string }) => brokers[Number(nodeId) as 1 | 2],
    addMultipleTargetTopics: async () => undefined,
    removeBroker: () => undefined,
    isConnected: () => true,
    connect: async () => undefined,
  };
  const eosManager = {
    acquireBrokerLock: async () => undefined,
    releaseBrokerLock: async () => undefined,
    isTransactional: () => false,
    addPartitionsToTransaction: async () => undefined,
    getTransactionalId: () => '',
    getProducerId: () => 7,
    getProducerEpoch: () => 0,
    getSequence: (_topic: string, partition: number) => sequences.get(partition) ?? 0,
    updateSequence: (_topic: string, partition: number, by: number) => sequences.set(partition, (sequences.get(partition) ?? 0) + by),
  };
  const options = {
    logger: { debug: () => undefined, error: () => undefined },
    cluster,
    partitioner: Partitioners.DefaultPartitioner(),
    eosManager,
    retrier: createRetry({ retries: 3, initialRetryTime: 1 }),
  };
  const send = {
    acks: -1,
    timeout: 1000,
    compression: 0,
    topicMessages: [{ topic: 't', messages: [0, 1].map((partition) => ({ partition, value: `v${partition}` })) }],
  };
  /** Which broker wrote each partition, and with which first sequence. */
  const written = () =>
    requests
      .filter(({ nodeId }) => nodeId !== 1)
      .flatMap(({ nodeId, request }) =>
        request.topicData[0]!.partitions.map((p) => ({ partition: p.partition, nodeId, firstSequence: p.firstSequence })),
      );
  return { options, send, written };
}

describe('the producer send (kafkajs sendMessages, fixed)', () => {
  test('when a broker dies mid-send and its partition moves to a broker that already answered, then that partition is sent to it too', async () => {
    const { options, send, written } = brokerDiesMidSend();
    const result = await createSendMessages(options as never)(send);
    expect(written()).toEqual([
      { partition: 1, nodeId: 2, firstSequence: 0 },
      { partition: 0, nodeId: 2, firstSequence: 0 }, // the failed attempt's sequence, kept
    ]);
    expect(result.map((r) => (r as { partition: number }).partition).sort()).toEqual([0, 1]);
  });

  test("when kafkajs's own send meets the same, then it resolves without ever writing the moved partition (the bug fixed here)", async () => {
    const { options, send, written } = brokerDiesMidSend();
    const result = await kafkajsSendMessages(options as never)(send);
    expect(written()).toEqual([{ partition: 1, nodeId: 2, firstSequence: 0 }]);
    expect(result).toHaveLength(1); // "sent", though partition 0's record is nowhere
  });

  test('when a Node process loads the shared package, then kafkajs producers send through the fixed function', () => {
    const repo = path.resolve(__dirname, '..', '..', '..');
    const script = "const s = require('./shared/dist'); require('kafkajs'); process.stdout.write(String(s.kafkajsSendFixInForce()));";
    expect(execFileSync(process.execPath, ['-e', script], { cwd: repo, encoding: 'utf8' })).toBe('true');
  });
});
