import { Kafka, logLevel, type ISocketFactory, type Producer } from 'kafkajs';
import { createTopics, readTopicToEnd, testInfrastructure, testKafka, uniqueName } from '../../../test/helpers/infrastructure';
import { ApiKeys, tappedSocket } from '../../../test/helpers/kafka-sockets';

/**
 * A Produce request the broker writes but whose answer never reaches the producer (the broker died
 * or the connection closed just after the write), against a real broker. Which send function
 * kafkajs's producers use is chosen per test: Hookstream's fixed one, which a service process puts
 * in kafkajs's place at start (kafkajs-preload.ts; jest loads kafkajs afresh, so here jest does
 * it), or kafkajs's own.
 */
let mockSendFunction: 'hookstream' | 'kafkajs' = 'hookstream';
jest.mock('kafkajs/src/producer/sendMessages', () => {
  const hookstream = jest.requireActual('../../src/kafka/kafkajs-send-messages').createSendMessages;
  const kafkajs = jest.requireActual('kafkajs/src/producer/sendMessages');
  return (options: unknown) => (mockSendFunction === 'hookstream' ? hookstream : kafkajs)(options);
});

/**
 * Real connections to the broker that, when told to, close (with an error, as a dying broker's
 * connection does) at the first byte of the answer to a Produce request, instead of passing it on.
 */
class AnswerDropper {
  private toDrop = 0;
  dropped = 0;

  /** Drops the answers to the next `count` Produce requests. */
  dropProduceAnswers(count: number): void {
    this.toDrop += count;
  }

  readonly socketFactory: ISocketFactory = (options) => {
    const produceRequests = new Set<number>();
    const socket = tappedSocket(options, (apiKey, correlationId) => apiKey === ApiKeys.produce && produceRequests.add(correlationId));
    // Answers arrive in any chunking: size, correlation id, body.
    let unread = Buffer.alloc(0);
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event !== 'data') return emit(event, ...args);
      unread = Buffer.concat([unread, args[0] as Buffer]);
      while (unread.length >= 8) {
        if (this.toDrop > 0 && produceRequests.has(unread.readInt32BE(4))) {
          this.toDrop -= 1;
          this.dropped += 1;
          socket.destroy(new Error('the answer to a Produce request was dropped by the test'));
          return true;
        }
        const frame = 4 + unread.readInt32BE(0);
        if (unread.length < frame) break;
        unread = unread.subarray(frame);
      }
      return emit(event, ...args);
    }) as typeof socket.emit;
    return socket;
  };
}

async function valuesOf(topic: string): Promise<string[]> {
  return (await readTopicToEnd(topic)).map((m) => m.value!.toString());
}

/** A topic of one partition, and an idempotent producer (Hookstream's settings, `retries` retries of a send) through an AnswerDropper. */
async function setUp(retries: number): Promise<{ topic: string; producer: Producer; dropper: AnswerDropper }> {
  const topic = uniqueName('lost-answer');
  await createTopics(testKafka(), [{ topic }]);
  const dropper = new AnswerDropper();
  const kafka = new Kafka({
    clientId: uniqueName('lost-answer'),
    brokers: testInfrastructure().brokers,
    socketFactory: dropper.socketFactory,
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, retry: { retries, initialRetryTime: 50 } });
  await producer.connect();
  producers.push(producer);
  return { topic, producer, dropper };
}

const producers: Producer[] = [];
afterEach(async () => {
  await Promise.all(producers.splice(0).map((p) => p.disconnect().catch(() => undefined)));
  mockSendFunction = 'hookstream';
});

const send = (producer: Producer, topic: string, value: string) => producer.send({ topic, acks: -1, messages: [{ value }] });

describe('a write whose answer is lost (real broker)', () => {
  test('when a send gives up after the broker wrote its record, then the next send is written too', async () => {
    const { topic, producer, dropper } = await setUp(1);
    await send(producer, topic, 'first');
    dropper.dropProduceAnswers(2); // the request's and its retry's
    await expect(send(producer, topic, 'second')).rejects.toThrow();
    expect(dropper.dropped).toBe(2);

    await send(producer, topic, 'third');
    await send(producer, topic, 'fourth');

    // 'second' was written though its send failed (the caller was told it failed: 503, retry).
    expect(await valuesOf(topic)).toEqual(['first', 'second', 'third', 'fourth']);
  });

  test("when kafkajs's own send meets the same, then it acknowledges the next record without writing it (the bug fixed here)", async () => {
    mockSendFunction = 'kafkajs';
    const { topic, producer, dropper } = await setUp(1);
    await send(producer, topic, 'first');
    dropper.dropProduceAnswers(2);
    await expect(send(producer, topic, 'second')).rejects.toThrow();

    await send(producer, topic, 'third'); // resolves: the broker took it for 'second' again
    await send(producer, topic, 'fourth');

    expect(await valuesOf(topic)).toEqual(['first', 'second', 'fourth']);
  });

  test('when a send retries a write whose answer was lost, then the record is written once', async () => {
    const { topic, producer, dropper } = await setUp(3);
    await send(producer, topic, 'first');
    dropper.dropProduceAnswers(1);
    await send(producer, topic, 'second');
    expect(dropper.dropped).toBe(1);
    await send(producer, topic, 'third');

    expect(await valuesOf(topic)).toEqual(['first', 'second', 'third']);
  });

  test('when a second send goes out while the first waits to retry its lost answer, then both are written, once each', async () => {
    const { topic, producer, dropper } = await setUp(3);
    await send(producer, topic, 'first');
    dropper.dropProduceAnswers(1);
    const second = send(producer, topic, 'second');
    const third = send(producer, topic, 'third');
    await Promise.all([second, third]);
    expect(dropper.dropped).toBe(1);

    expect((await valuesOf(topic)).sort()).toEqual(['first', 'second', 'third']);
  });
});
