import type { Producer, ProducerBatch, RecordMetadata } from 'kafkajs';
import { BatchingProducer } from '../../src/kafka/batching-producer';
import { KafkaUnavailableError } from '../../src/errors';

/** A stand-in for kafkajs's producer: records each sendBatch, settles when the test says. */
function fakeProducer() {
  const calls: Array<{ batch: ProducerBatch; settle: (error?: unknown) => void }> = [];
  const singles: Array<{ value: string | null }> = [];
  const producer = {
    send: ({ topic, messages }: { topic: string; messages: Array<{ value: Buffer | null }> }) => {
      const value = messages[0]!.value?.toString() ?? null;
      singles.push({ value });
      return value === 'too-large'
        ? Promise.reject(
            Object.assign(new Error('MESSAGE_TOO_LARGE'), { name: 'KafkaJSProtocolError', type: 'MESSAGE_TOO_LARGE', retriable: false }),
          )
        : Promise.resolve([{ topicName: topic, partition: 0, errorCode: 0 }]);
    },
    sendBatch: (batch: ProducerBatch) =>
      new Promise<RecordMetadata[]>((resolve, reject) => {
        calls.push({
          batch,
          settle: (error) =>
            error
              ? reject(error)
              : resolve(batch.topicMessages!.map((t) => ({ topicName: t.topic, partition: 0, errorCode: 0, baseOffset: '0' }))),
        });
      }),
  } as unknown as Producer;
  return { producer, calls, singles };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('BatchingProducer', () => {
  test('when sends arrive together, then they go out in one batch and each caller is answered', async () => {
    const { producer, calls } = fakeProducer();
    const batching = new BatchingProducer(producer, { lingerMs: 1 });
    const sends = [1, 2, 3].map((i) => batching.send({ topic: i === 3 ? 'b' : 'a', key: `k${i}`, value: Buffer.from('v') }));
    await tick();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.batch.acks).toBe(-1);
    expect(calls[0]!.batch.topicMessages!.map((t) => [t.topic, t.messages.length])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    calls[0]!.settle();
    const results = await Promise.all(sends);
    expect(results[2]).toEqual([{ topicName: 'b', partition: 0, errorCode: 0, baseOffset: '0' }]);
  });

  test('while a batch is in flight, then new sends wait and leave together in the next one', async () => {
    const { producer, calls } = fakeProducer();
    const batching = new BatchingProducer(producer, { lingerMs: 1 });
    const first = batching.send({ topic: 't', key: null, value: null });
    await tick();
    const later = Array.from({ length: 10 }, () => batching.send({ topic: 't', key: null, value: null }));
    await tick();
    expect(calls).toHaveLength(1); // nothing else sent while the first is in flight
    calls[0]!.settle();
    await first;
    await tick();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.batch.topicMessages![0]!.messages).toHaveLength(10);
    calls[1]!.settle();
    await Promise.all(later);
  });

  test('when a batch exceeds the maximum, then it is split', async () => {
    const { producer, calls } = fakeProducer();
    const batching = new BatchingProducer(producer, { lingerMs: 1, maxBatchRecords: 4 });
    const sends = Array.from({ length: 6 }, () => batching.send({ topic: 't', key: null, value: null }));
    await tick();
    expect(calls[0]!.batch.topicMessages![0]!.messages).toHaveLength(4);
    calls[0]!.settle();
    await tick();
    expect(calls[1]!.batch.topicMessages![0]!.messages).toHaveLength(2);
    calls[1]!.settle();
    await Promise.all(sends);
    expect(batching.stats).toEqual({ batches: 2, records: 6 });
  });

  test('when Kafka fails a batch with a retryable error, then every caller of that batch gets KafkaUnavailableError', async () => {
    const { producer, calls } = fakeProducer();
    const batching = new BatchingProducer(producer, { lingerMs: 1 });
    const sends = [batching.send({ topic: 't', key: null, value: null }), batching.send({ topic: 't', key: null, value: null })];
    await tick();
    calls[0]!.settle({ name: 'KafkaJSConnectionError', message: 'Connection error: ECONNREFUSED' });
    for (const send of sends) await expect(send).rejects.toBeInstanceOf(KafkaUnavailableError);
    // and the producer keeps working afterwards
    const next = batching.send({ topic: 't', key: null, value: null });
    await tick();
    calls[1]!.settle();
    await expect(next).resolves.toHaveLength(1);
  });

  test('when the broker refuses one record of a batch, then only that record fails and its companions are written', async () => {
    const { producer, calls, singles } = fakeProducer();
    const batching = new BatchingProducer(producer, { lingerMs: 1 });
    const good = batching.send({ topic: 't', key: null, value: Buffer.from('fine') });
    const bad = batching.send({ topic: 't', key: null, value: Buffer.from('too-large') });
    await tick();
    calls[0]!.settle(
      Object.assign(new Error('MESSAGE_TOO_LARGE'), { name: 'KafkaJSProtocolError', type: 'MESSAGE_TOO_LARGE', retriable: false }),
    );
    await expect(good).resolves.toEqual([{ topicName: 't', partition: 0, errorCode: 0 }]);
    await expect(bad).rejects.toThrow('MESSAGE_TOO_LARGE');
    expect(singles.map((s) => s.value)).toEqual(['fine', 'too-large']);
  });

  test('when queued records exceed the byte limit, then they go out in several batches, each under it', async () => {
    const { producer, calls } = fakeProducer();
    const batching = new BatchingProducer(producer, { lingerMs: 1, maxBatchBytes: 10_000 });
    const value = Buffer.alloc(3_000);
    const sends = Array.from({ length: 7 }, (_, i) => batching.send({ topic: 'a', key: `k${i}`, value }));
    await tick();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.batch.topicMessages![0]!.messages).toHaveLength(3);
    calls[0]!.settle();
    await tick();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.batch.topicMessages![0]!.messages).toHaveLength(3);
    calls[1]!.settle();
    await tick();
    expect(calls[2]!.batch.topicMessages![0]!.messages).toHaveLength(1);
    calls[2]!.settle();
    await Promise.all(sends);
  });
});
