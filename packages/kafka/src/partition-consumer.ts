/*
 * The PartitionConsumer (types.ts) on librdkafka's native consumer: assign() without a group, so a
 * reader holds no session that a broker restart must wait out, and reads on the moment the broker
 * answers again (librdkafka reconnects by itself). Made by client.ts, which hands in the library's
 * KafkaConsumer class; this file shapes what it returns into Hookstream's types.
 */
import { randomUUID } from 'node:crypto';
import { sleep } from '@hookstream/runtime';
import { isRetryableKafkaError } from './retryable';
import type { ClientStatistics, IHeaders, PartitionBounds, PartitionConsumer, PartitionConsumerOptions, ReadRecord } from './types';

/** The part of the native KafkaConsumer this adapter uses. */
export interface NativeConsumer {
  connect(options: object, callback: (error: unknown, value: unknown) => void): void;
  disconnect(callback: (error: unknown, value: unknown) => void): void;
  isConnected(): boolean;
  on(event: 'partition.eof', listener: (eof: { topic: string; partition: number; offset: number }) => void): void;
  on(event: 'event.stats', listener: (stats: { message: string }) => void): void;
  on(event: 'event.error', listener: (error: unknown) => void): void;
  setDefaultConsumeTimeout(timeoutMs: number): void;
  setDefaultIsTimeoutOnlyForFirstMessage(only: boolean): void;
  assign(assignments: Array<{ topic: string; partition: number; offset: number }>): void;
  consume(max: number, callback: (error: unknown, messages: NativeMessage[]) => void): void;
  seek(
    position: { topic: string; partition: number; offset: number },
    timeoutMs: number,
    callback: (error: unknown, value: unknown) => void,
  ): void;
  getMetadata(options: { topic: string; timeout: number }, callback: (error: unknown, metadata: NativeMetadata) => void): void;
  queryWatermarkOffsets(
    topic: string,
    partition: number,
    timeoutMs: number,
    callback: (error: unknown, offsets: { lowOffset: number; highOffset: number }) => void,
  ): void;
  offsetsForTimes(
    partitions: Array<{ topic: string; partition: number; offset: number }>,
    timeoutMs: number,
    callback: (error: unknown, offsets: Array<{ partition: number; offset: number }>) => void,
  ): void;
}

export interface NativeMessage {
  topic: string;
  partition: number;
  offset: number;
  timestamp?: number;
  key?: Buffer | string | null;
  value: Buffer | null;
  headers?: Array<Record<string, Buffer | string>>;
}

interface NativeMetadata {
  topics: Array<{ name: string; partitions: Array<{ id: number }> }>;
}

export type NativeConsumerFactory = (config: Record<string, unknown>, topicConfig: Record<string, unknown>) => NativeConsumer;

/** How long a metadata or offsets request to the broker may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Tries of a read that failed for a reason that passes (a broker just died: librdkafka asked it). */
const READ_TRIES = 5;
const READ_RETRY_MS = 200;

/** A metadata or offsets read, tried again while it fails for a reason that passes. */
async function reading<T>(read: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await read();
    } catch (error) {
      if (tries >= READ_TRIES || !isRetryableKafkaError(error)) throw error;
      await sleep(READ_RETRY_MS);
    }
  }
}

/** Turns a callback-style native call into a promise. */
function call<T>(invoke: (callback: (error: unknown, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => invoke((error, value) => (error ? reject(asError(error)) : resolve(value))));
}

/** librdkafka's errors are Error objects; anything else it hands back is made one. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(JSON.stringify(error));
}

/** A native message as Hookstream's KafkaMessage: offsets and timestamps as decimal strings, headers as one object. */
export function toKafkaMessage(native: NativeMessage): ReadRecord {
  let headers: IHeaders | undefined;
  for (const header of native.headers ?? []) {
    headers ??= {};
    for (const [name, value] of Object.entries(header)) {
      const previous = headers[name];
      headers[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
    }
  }
  const key = native.key === undefined || native.key === null ? null : Buffer.isBuffer(native.key) ? native.key : Buffer.from(native.key);
  return {
    topic: native.topic,
    partition: native.partition,
    message: {
      key,
      value: native.value ?? null,
      offset: String(native.offset),
      timestamp: String(native.timestamp ?? 0),
      ...(headers ? { headers } : {}),
    },
  };
}

export function createPartitionConsumer(
  create: NativeConsumerFactory,
  connection: Record<string, unknown>,
  options: PartitionConsumerOptions = {},
): PartitionConsumer {
  const maxWaitMs = options.maxWaitMs ?? 100;
  const native = create(
    {
      ...connection,
      // librdkafka wants a group id even for assign(); none is joined, and nothing is committed.
      'group.id': `hookstream-reader-${randomUUID()}`,
      'enable.auto.commit': false,
      'enable.auto.offset.store': false,
      'isolation.level': options.readUncommitted ? 'read_uncommitted' : 'read_committed',
      'enable.partition.eof': true,
      'fetch.wait.max.ms': maxWaitMs,
      'fetch.max.bytes': 10 * 1024 * 1024,
      'max.partition.fetch.bytes': options.maxBytesPerPartition ?? 1024 * 1024,
      // A reader keeps no more than a fetch or two per partition ahead of what it applied.
      'queued.max.messages.kbytes': 4 * 1024,
      ...(options.onStats ? { 'statistics.interval.ms': options.statsIntervalMs ?? 1000 } : {}),
    },
    // When a position's records were deleted (retention), go on from the partition's first record.
    { 'auto.offset.reset': 'earliest' },
  );
  native.setDefaultConsumeTimeout(maxWaitMs);
  // consume(n) waits for the first record only, then takes what is already there: without this it
  // waits up to the timeout for each of the n records, and a record read alone is held that long.
  native.setDefaultIsTimeoutOnlyForFirstMessage(true);
  if (options.onEnd) {
    const onEnd = options.onEnd;
    native.on('partition.eof', (eof) => onEnd(eof.topic, eof.partition, BigInt(eof.offset)));
  }
  if (options.onStats) {
    const onStats = options.onStats;
    native.on('event.stats', (stats) => onStats(JSON.parse(stats.message) as ClientStatistics));
  }
  // Errors librdkafka reports here (a broker down, all brokers down) it recovers from by itself;
  // without a listener the event emitter would throw them.
  native.on('event.error', () => undefined);

  const watermarks = (topic: string, partition: number) =>
    reading(() =>
      call<{ lowOffset: number; highOffset: number }>((cb) => native.queryWatermarkOffsets(topic, partition, REQUEST_TIMEOUT_MS, cb)),
    );

  return {
    connect: () => call<unknown>((cb) => native.connect({ timeout: REQUEST_TIMEOUT_MS }, cb)).then(() => undefined),
    disconnect: () => (native.isConnected() ? call<unknown>((cb) => native.disconnect(cb)).then(() => undefined) : Promise.resolve()),
    async partitionsOf(topic) {
      const metadata = await reading(() => call<NativeMetadata>((cb) => native.getMetadata({ topic, timeout: REQUEST_TIMEOUT_MS }, cb)));
      const found = metadata.topics.find((t) => t.name === topic);
      if (!found || found.partitions.length === 0) throw new Error(`topic ${topic} has no partitions (does it exist?)`);
      return found.partitions.map((p) => p.id).sort((a, b) => a - b);
    },
    assign(positions) {
      native.assign(positions.map((p) => ({ topic: p.topic, partition: p.partition, offset: Number(p.offset) })));
    },
    async consume(max) {
      const messages = await call<NativeMessage[]>((cb) => native.consume(max, cb));
      return messages.map(toKafkaMessage);
    },
    seek: (topic, partition, offset) =>
      call<unknown>((cb) => native.seek({ topic, partition, offset: Number(offset) }, REQUEST_TIMEOUT_MS, cb)).then(() => undefined),
    bounds: (topic, partitions) =>
      Promise.all(
        partitions.map(async (partition): Promise<PartitionBounds> => {
          // A read_committed client is answered with the last stable offset as the high mark.
          const { lowOffset, highOffset } = await watermarks(topic, partition);
          return { partition, low: BigInt(lowOffset), end: BigInt(highOffset) };
        }),
      ),
    async offsetsAt(topic, partitions, timestamp) {
      const found = await reading(() =>
        call<Array<{ partition: number; offset: number }>>((cb) =>
          native.offsetsForTimes(
            partitions.map((partition) => ({ topic, partition, offset: timestamp })),
            REQUEST_TIMEOUT_MS,
            cb,
          ),
        ),
      );
      const result = new Map<number, bigint>();
      for (const { partition, offset } of found) {
        result.set(partition, offset >= 0 ? BigInt(offset) : BigInt((await watermarks(topic, partition)).highOffset));
      }
      return result;
    },
  };
}
