import net from 'node:net';
import { withTimeout } from '@hookstream/runtime';
import type { BrokerConnectivity } from './broker-connectivity';
import { withTraceHeaders } from './record-trace';
import type { Producer, RecordMetadata, TopicMessages, Transaction } from './types';

/**
 * The producer Hookstream's Kafka hands out, around librdkafka's KafkaJS-style one:
 *
 * - `connect()` fails fast when Kafka is not there. librdkafka's producer connects by asking for
 *   the cluster's metadata and waits 30 s for an answer whatever the connection settings, and a
 *   process cannot exit while that request is under way: a CLI command against a wrong address
 *   would hang that long. So `connect()` first checks that a bootstrap broker accepts a TCP
 *   connection (within the client's connection timeout), and gives librdkafka's connect
 *   `connectTimeoutMs` after that. A connect that gave up goes on in the background;
 *   `disconnect()` returns at once and closes it once that attempt is over (librdkafka's
 *   disconnect would block the event loop until then).
 * - Keys and values given as text are sent as their UTF-8 bytes: the binding copies a string into
 *   librdkafka as a C string, which ends at its first NUL character, so a key holding one would
 *   be hashed to another partition and stored cut short (test/partitioner.int.test.ts).
 * - Every record carries the writer's W3C trace context in its headers (`traceparent`, record-trace.ts).
 * - `writable()` says from the producer's statistics whether a write could succeed now
 *   (BrokerConnectivity).
 */
export class HookstreamProducer implements Producer {
  /** The connect given up on, still under way. */
  private abandoned: Promise<void> | undefined;
  constructor(
    private readonly inner: Omit<Producer, 'writable' | 'reachable'>,
    private readonly connectivity: BrokerConnectivity,
    private readonly brokers: readonly string[],
    private readonly tcpTimeoutMs: number,
    private readonly connectTimeoutMs: number,
  ) {}

  async connect(): Promise<void> {
    await anyAccepts(this.brokers, this.tcpTimeoutMs);
    const connecting = this.inner.connect();
    try {
      await withTimeout(connecting, this.connectTimeoutMs, `no Kafka broker answered within ${this.connectTimeoutMs} ms`);
    } catch (error) {
      this.abandoned = connecting.catch(() => undefined);
      throw error;
    }
  }

  async disconnect(): Promise<void> {
    if (!this.abandoned) return this.inner.disconnect();
    void this.abandoned.then(() => this.inner.disconnect()).catch(() => undefined);
  }

  send(record: TopicMessages): Promise<RecordMetadata[]> {
    return this.inner.send(asBytes(record));
  }

  sendBatch(batch: { topicMessages: TopicMessages[] }): Promise<RecordMetadata[]> {
    return this.inner.sendBatch({ topicMessages: batch.topicMessages.map(asBytes) });
  }

  async transaction(): Promise<Transaction> {
    const transaction = await this.inner.transaction();
    return {
      send: (record) => transaction.send(asBytes(record)),
      sendBatch: (batch) => transaction.sendBatch({ topicMessages: batch.topicMessages.map(asBytes) }),
      sendOffsets: (args) => transaction.sendOffsets(args),
      commit: () => transaction.commit(),
      abort: () => transaction.abort(),
    };
  }

  writable(topics: readonly string[]): boolean {
    return this.connectivity.writable(topics);
  }

  reachable(topic: string): boolean {
    return this.connectivity.reachable(topic);
  }
}

/** The records with text keys and values as UTF-8 bytes, and with their trace context (see the class's comment). */
function asBytes(record: TopicMessages): TopicMessages {
  return {
    topic: record.topic,
    messages: record.messages.map((message) => ({
      ...message,
      headers: withTraceHeaders(message.headers),
      key: typeof message.key === 'string' ? Buffer.from(message.key) : message.key,
      value: typeof message.value === 'string' ? Buffer.from(message.value) : message.value,
    })),
  };
}

/**
 * Resolves once one of `brokers` (host:port) accepts a TCP connection; rejects when none does within
 * `timeoutMs`, with the last broker's own failure as the cause ("connect ECONNREFUSED …").
 */
export function anyAccepts(brokers: readonly string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed = 0;
    for (const broker of brokers) {
      const at = broker.lastIndexOf(':');
      const socket = net.connect({ host: broker.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(broker.slice(at + 1)) });
      socket.setTimeout(timeoutMs);
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      const fail = (cause: Error) => {
        socket.destroy();
        if (++failed === brokers.length) reject(new Error(`no Kafka broker accepts connections at ${brokers.join(',')}`, { cause }));
      };
      socket.once('error', fail);
      socket.once('timeout', () => fail(new Error(`connect to ${broker} timed out after ${timeoutMs} ms`)));
    }
  });
}
