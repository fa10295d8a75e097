/*
 * The parts of librdkafka's native classes (the binding's KafkaConsumer and Producer) that
 * Hookstream's group members and transactional producers use: client.ts hands the library's
 * objects in under these shapes, so the adapters and their tests need not import the library.
 */
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import type { NativeMessage } from './partition-consumer';
import type { TopicPartition } from './types';

/** The part of the native KafkaConsumer a group member uses. */
export interface NativeGroupClient {
  connect(options: object, callback: (error: unknown) => void): void;
  disconnect(callback: (error: unknown) => void): void;
  isConnected(): boolean;
  on(event: 'event.error' | 'event.stats', listener: (event: unknown) => void): void;
  subscribe(topics: string[]): void;
  setDefaultConsumeTimeout(timeoutMs: number): void;
  setDefaultIsTimeoutOnlyForFirstMessage(only: boolean): void;
  consume(max: number, callback: (error: unknown, messages: NativeMessage[]) => void): void;
  assign(partitions: TopicPartition[]): void;
  unassign(): void;
  pause(partitions: TopicPartition[]): void;
  resume(partitions: TopicPartition[]): void;
  seek(position: { topic: string; partition: number; offset: number }, timeoutMs: number, callback: (error: unknown) => void): void;
  offsetsStore(offsets: Array<TopicPartition & { offset: number }>): void;
  commitCb(offsets: Array<TopicPartition & { offset: number }> | null, callback: (error: unknown) => void): void;
  committed(
    partitions: TopicPartition[],
    timeoutMs: number,
    callback: (error: unknown, offsets: Array<TopicPartition & { offset?: number }>) => void,
  ): void;
}

/** What a member's client is made with: its rebalances are this adapter's. */
export interface GroupClientHooks {
  onRebalance: (error: { code: number }, assignment: TopicPartition[]) => void;
}

/** The part of the native Producer a transactional producer uses. */
export interface NativeTransactionalClient {
  connect(options: object, callback: (error: unknown) => void): void;
  disconnect(timeoutMs: number, callback: (error: unknown) => void): void;
  isConnected(): boolean;
  on(event: 'event.error' | 'event.stats', listener: (event: unknown) => void): void;
  on(event: 'delivery-report', listener: (error: unknown, report: { opaque?: unknown }) => void): void;
  setPollInBackground(set: boolean): void;
  produce(
    topic: string,
    partition: number | null,
    value: Buffer | null,
    key: Buffer | null,
    timestamp: number | null,
    opaque: unknown,
    headers: Array<Record<string, Buffer | string>>,
  ): void;
  initTransactions(timeoutMs: number, callback: (error: unknown) => void): void;
  beginTransaction(callback: (error: unknown) => void): void;
  sendOffsetsToTransaction(
    offsets: Array<{ topic: string; partition: number; offset: number }>,
    consumer: NativeGroupClient,
    timeoutMs: number,
    callback: (error: unknown) => void,
  ): void;
  commitTransaction(timeoutMs: number, callback: (error: unknown) => void): void;
  abortTransaction(timeoutMs: number, callback: (error: unknown) => void): void;
}

/** librdkafka's code for a failed SASL authentication: the settings are wrong, retrying will not help. */
const AUTHENTICATION_FAILED = -169;
/** librdkafka's code for a fatal error (ERR__FATAL): the client is unusable for good, and a new one is needed. */
const FATAL = -150;

/**
 * Whether a client's error means it is unusable for good: flagged fatal, or librdkafka's ERR__FATAL as
 * its error events carry it (no flag there). A consumer gets one when, as a static member, the group
 * fences it (another join with its group.instance.id won: librdkafka#3437, after a coordinator restart).
 */
export function isFatalClientError(error: unknown): boolean {
  const { isFatal, code } = (error ?? {}) as { isFatal?: boolean; code?: number };
  return isFatal === true || code === FATAL;
}

/**
 * A listener for a native client's error events: errors librdkafka recovers from by itself (a
 * broker down or back) at debug, so an outage does not flood the log; fatal ones and failed
 * authentication, which need an operator, at error. Without a listener the event emitter would throw.
 */
export function clientErrorListener(logger: Logger): (error: unknown) => void {
  return (error) => {
    const { code } = (error ?? {}) as { code?: number };
    if (isFatalClientError(error) || code === AUTHENTICATION_FAILED)
      logger.error({ err: describeError(error), code }, 'Kafka client error');
    else logger.debug({ err: describeError(error), code }, 'Kafka client error (recovered by itself)');
  };
}
