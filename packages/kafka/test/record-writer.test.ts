import { RecordWriter } from '../src/record-writer';
import { KafkaUnavailableError } from '@hookstream/errors';
import type { Producer, TopicMessages } from '../src/types';

/** A stand-in for a producer: records each send, settles when the test says; its leaders are connected while `connected.value`. */
function fakeProducer() {
  const sends: Array<{ record: TopicMessages; settle: (error?: unknown) => void }> = [];
  const connected = { value: true };
  const producer = {
    reachable: () => connected.value,
    send: (record: TopicMessages) =>
      new Promise((resolve, reject) =>
        sends.push({
          record,
          settle: (error) => (error ? reject(error) : resolve([{ topicName: record.topic, partition: 0, baseOffset: '7' }])),
        }),
      ),
  } as unknown as Producer;
  return { producer, sends, connected };
}

describe('RecordWriter', () => {
  test('when records are sent, then each goes out on its own with its key, headers and partition, and its caller gets its metadata', async () => {
    const { producer, sends } = fakeProducer();
    const writer = new RecordWriter(producer);
    const first = writer.send({ topic: 'a', key: 'k1', value: Buffer.from('v'), headers: { h: 'x' }, partition: 2 });
    const second = writer.send({ topic: 'b', key: null, value: null });
    expect(sends.map((s) => s.record)).toEqual([
      { topic: 'a', messages: [{ key: 'k1', value: Buffer.from('v'), headers: { h: 'x' }, partition: 2 }] },
      { topic: 'b', messages: [{ key: null, value: null }] },
    ]);
    sends.forEach((s) => s.settle());
    expect(await first).toEqual([{ topicName: 'a', partition: 0, baseOffset: '7' }]);
    expect(await second).toEqual([{ topicName: 'b', partition: 0, baseOffset: '7' }]);
  });

  test('when Kafka does not acknowledge in time, then the send fails as KafkaUnavailableError; a record the broker refuses fails as it is, alone', async () => {
    const { producer, sends } = fakeProducer();
    const writer = new RecordWriter(producer);
    const timedOut = writer.send({ topic: 't', key: null, value: null });
    const refused = writer.send({ topic: 't', key: null, value: Buffer.alloc(10) });
    const fine = writer.send({ topic: 't', key: null, value: null });
    sends[0]!.settle(Object.assign(new Error('Local: Message timed out'), { name: 'KafkaJSError', code: -192 }));
    const tooLarge = Object.assign(new Error('Broker: Message size too large'), { name: 'KafkaJSProtocolError', code: 10 });
    sends[1]!.settle(tooLarge);
    sends[2]!.settle();
    await expect(timedOut).rejects.toBeInstanceOf(KafkaUnavailableError);
    await expect(refused).rejects.toBe(tooLarge);
    await expect(fine).resolves.toHaveLength(1);
  });

  test('flush() resolves once every record sent so far is settled, failed ones included', async () => {
    const { producer, sends } = fakeProducer();
    const writer = new RecordWriter(producer);
    void writer.send({ topic: 't', key: null, value: null }).catch(() => undefined);
    void writer.send({ topic: 't', key: null, value: null });
    let flushed = false;
    const flushing = writer.flush().then(() => (flushed = true));
    sends[0]!.settle(new Error('refused'));
    await new Promise((r) => setTimeout(r, 5));
    expect(flushed).toBe(false);
    sends[1]!.settle();
    await flushing;
    expect(flushed).toBe(true);
  });

  test('when no leader of the topic is connected, then the send fails at once as KafkaUnavailableError, and nothing is sent', async () => {
    const { producer, sends, connected } = fakeProducer();
    connected.value = false;
    const writer = new RecordWriter(producer);
    await expect(writer.send({ topic: 't', key: null, value: null })).rejects.toBeInstanceOf(KafkaUnavailableError);
    expect(sends).toEqual([]);
  });

  test('when the connection to the leaders is lost while a record waits, then its caller gets KafkaUnavailableError without waiting for the broker', async () => {
    jest.useFakeTimers();
    try {
      const { producer, sends, connected } = fakeProducer();
      const writer = new RecordWriter(producer);
      const waiting = writer.send({ topic: 't', key: null, value: null });
      const outcome = waiting.then(
        () => 'acknowledged',
        (error: unknown) => error,
      );
      jest.advanceTimersByTime(1000);
      connected.value = false;
      jest.advanceTimersByTime(250);
      expect(await outcome).toBeInstanceOf(KafkaUnavailableError);
      // The record stays with the producer, which may still write it.
      expect(sends).toHaveLength(1);
      sends[0]!.settle();
    } finally {
      jest.useRealTimers();
    }
  });
});
