/*
 * A transactional producer on librdkafka's native producer. Made by client.ts, which hands in the
 * library's Producer class; HookstreamProducer wraps it as it wraps the others.
 *
 * Native because a transaction commits a group member's offsets with the member's group metadata
 * (KIP-447), and the member is a native consumer (GroupConsumer): the native producer takes it as
 * it is. A send resolves once librdkafka reports each of its records written (its delivery
 * reports, served by a thread of librdkafka's in the background).
 *
 * librdkafka's sendOffsetsToTransaction ignores its timeout when the group's coordinator died
 * (librdkafka#5456, #5511, open): the call may never return, and the producer accepts no other
 * transactional call meanwhile. Past its timeout (and a grace) the call is given up on here: the
 * producer refuses further calls, and its owner opens a new one under the same transactional id,
 * which fences it and aborts its transaction. The abandoned one is closed if its call ever returns:
 * librdkafka's destroy waits for it (a fresh-clone CI run met a member stuck closing it). Until then
 * the call holds a thread of libuv's pool, and the process cannot exit by itself: a service's
 * supervisor ends it with SIGKILL after its shutdown timeout (transactional-producer.test.ts;
 * test/group-coordinator-death.int.test.ts).
 */
import { withTimeout } from '@hookstream/runtime';
import { GroupConsumer } from './group-consumer';
import type { NativeTransactionalClient } from './native-clients';
import type { Consumer, Message, Producer, RecordMetadata, TopicMessages, TopicOffsets, Transaction } from './types';

/** How long past its own timeout a sendOffsetsToTransaction may take before it is given up on. */
const HUNG_CALL_GRACE_MS = 2000;

/** The producer without HookstreamProducer's additions: connect opens the transactional id (fencing its earlier holders). */
export class TransactionalProducer implements Omit<Producer, 'writable' | 'reachable'> {
  /** A call given up on (see the file's header): the producer takes no other. */
  private hung: Promise<unknown> | undefined;

  constructor(
    private readonly native: NativeTransactionalClient,
    /** How long a transaction's own requests (init, offsets, commit, abort) may take. */
    private readonly timeoutMs: number,
  ) {
    native.on('delivery-report', (error, report) => {
      const waiter = report.opaque as DeliveryWaiter | undefined;
      if (error) waiter?.reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      else waiter?.resolve();
    });
  }

  async connect(): Promise<void> {
    await call((cb) => this.native.connect({ timeout: this.timeoutMs }, cb));
    // Delivery reports and statistics reach JavaScript as they come, not at a polling interval.
    this.native.setPollInBackground(true);
    await call((cb) => this.native.initTransactions(this.timeoutMs, cb));
  }

  async disconnect(): Promise<void> {
    const close = () => (this.native.isConnected() ? call((cb) => this.native.disconnect(this.timeoutMs, cb)) : Promise.resolve());
    // librdkafka's destroy would wait for the hung call (see the file's header): closed once it returns.
    if (this.hung) return void this.hung.then(close).catch(() => undefined);
    await close();
  }

  send(): Promise<RecordMetadata[]> {
    return Promise.reject(new Error('a transactional producer writes in a transaction (producer.transaction())'));
  }

  sendBatch(): Promise<RecordMetadata[]> {
    return this.send();
  }

  async transaction(): Promise<Transaction> {
    await call((cb) => this.native.beginTransaction(cb));
    const sendBatch = async (batch: { topicMessages: TopicMessages[] }): Promise<RecordMetadata[]> => {
      const written = batch.topicMessages.flatMap(({ topic, messages }) => messages.map((message) => this.produce(topic, message)));
      await Promise.all(written);
      return [];
    };
    return {
      send: (record) => sendBatch({ topicMessages: [record] }),
      sendBatch,
      sendOffsets: (args) => this.sendOffsets(args.consumer, args.topics),
      commit: () => this.usable().then(() => call((cb) => this.native.commitTransaction(this.timeoutMs, cb))),
      abort: () => this.usable().then(() => call((cb) => this.native.abortTransaction(this.timeoutMs, cb))),
    };
  }

  /** Resolves once librdkafka reports the record written (rejects with why not). */
  private produce(topic: string, message: Message): Promise<void> {
    const headers = Object.entries(message.headers ?? {}).flatMap(([name, value]) =>
      value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => ({ [name]: v })),
    );
    return new Promise<void>((resolve, reject) => {
      const report: DeliveryWaiter = { resolve, reject };
      this.native.produce(
        topic,
        message.partition ?? null,
        asBuffer(message.value),
        asBuffer(message.key ?? null),
        message.timestamp ? Number(message.timestamp) : null,
        report,
        headers,
      );
    });
  }

  private sendOffsets(consumer: Consumer, topics: TopicOffsets[]): Promise<void> {
    if (!(consumer instanceof GroupConsumer))
      return Promise.reject(new Error("sendOffsets takes a group member made by Hookstream's Kafka"));
    const offsets = topics.flatMap(({ topic, partitions }) =>
      partitions.map((p) => ({ topic, partition: p.partition, offset: Number(p.offset) })),
    );
    let returned = false;
    const sent = call((cb) => this.native.sendOffsetsToTransaction(offsets, consumer.groupClient(), this.timeoutMs, cb)).finally(
      () => (returned = true),
    );
    const limit = this.timeoutMs + HUNG_CALL_GRACE_MS;
    return withTimeout(sent, limit, `sendOffsetsToTransaction did not return within ${limit} ms; the producer is abandoned`).catch(
      (error: unknown) => {
        // Still under way: given up on (see the file's header).
        if (!returned) this.hung = sent.catch(() => undefined);
        throw error;
      },
    );
  }

  private usable(): Promise<void> {
    return this.hung
      ? Promise.reject(new Error('the producer was abandoned: a sendOffsetsToTransaction of it never returned'))
      : Promise.resolve();
  }
}

/** A record's sender, waiting for its delivery report (the record's opaque). */
interface DeliveryWaiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

function asBuffer(value: Buffer | string | null): Buffer | null {
  return typeof value === 'string' ? Buffer.from(value) : value;
}

function call(invoke: (callback: (error: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) =>
    invoke((error) => (error ? reject(error instanceof Error ? error : new Error(JSON.stringify(error))) : resolve())),
  );
}
