/*
 * The librdkafka settings Hookstream's clients run with where they differ from librdkafka's
 * defaults, each with why (client.ts makes the clients). Connection settings are client.ts's.
 */
import type { ConsumerOptions, ProducerOptions } from './client-options';

/** How often each librdkafka client reports its statistics (requests counted, readers' currency). */
export const STATISTICS_INTERVAL_MS = 1000;
/** Producers' statistics also tell whether a write could succeed now (Producer.writable): four times as often. */
const PRODUCER_STATISTICS_INTERVAL_MS = 250;

/** Reconnect quickly after a broker comes back: at most a second between tries. */
export const RECONNECTION = { 'reconnect.backoff.ms': 50, 'reconnect.backoff.max.ms': 1000 };

/** Every producer's: idempotence and acks are set by the API that makes it. */
export function producerSettings(options: ProducerOptions): Record<string, unknown> {
  return {
    ...(options.maxBatchBytes ? { 'batch.size': options.maxBatchBytes } : {}),
    ...RECONNECTION,
    // Keys on the partitions the Java client's default partitioner picks (the KafkaJS-style API's default too; stated so nothing changes it).
    partitioner: 'murmur2_random',
    // librdkafka's default linger (5 ms) unless asked: against 2 ms at the ingress's full rate, the
    // broker's CPU fell from 45–49 % to 30 % of a core for the same throughput and p99 (npm run
    // bench:ingress, 2026-11-25, docs/benchmarks.md). The group members' transactional producers
    // ask for 0 (member-transactions.ts).
    ...(options.lingerMs === undefined ? {} : { 'linger.ms': options.lingerMs }),
    'message.timeout.ms': options.deliveryTimeoutMs ?? 30_000,
    // Retried until the delivery timeout, as the Java client does (librdkafka's own default).
    retries: 2_147_483_647,
    'retry.backoff.ms': 50,
    'retry.backoff.max.ms': 1000,
    'statistics.interval.ms': PRODUCER_STATISTICS_INTERVAL_MS,
    // A connection to every broker, kept up (reconnected at once) even while nothing is sent: the
    // writes refused while a broker is away would otherwise never make librdkafka reconnect, and
    // its return would go unseen (Producer.reachable). Not in the binding's types.
    'enable.sparse.connections': false,
  };
}

/** A transactional producer's, on top of producerSettings (the native API: idempotence and acks stated). */
export function transactionalSettings(
  transactionalId: string,
  transactionTimeoutMs: number,
  requestTimeoutMs: number,
): Record<string, unknown> {
  return {
    'enable.idempotence': true,
    acks: -1,
    'transactional.id': transactionalId,
    'transaction.timeout.ms': transactionTimeoutMs,
    // librdkafka refuses a socket timeout longer than the transaction's.
    'socket.timeout.ms': Math.min(requestTimeoutMs, transactionTimeoutMs + 100),
  };
}

/** How long a group member may hold a batch before it leaves its group: librdkafka wants no less than the session. */
export function maxPollIntervalOf(options: ConsumerOptions): number {
  return Math.max(options.rebalanceTimeoutMs ?? 300_000, options.sessionTimeoutMs ?? 10_000);
}

/** A group member's (native consumer). */
export function groupMemberSettings(options: ConsumerOptions): Record<string, unknown> {
  return {
    'group.id': options.groupId,
    // Eager rebalances; round-robin spreads many topics' partitions evenly over the members.
    'partition.assignment.strategy': 'roundrobin',
    'isolation.level': options.readUncommitted ? 'read_uncommitted' : 'read_committed',
    'auto.offset.reset': options.fromBeginning ? 'earliest' : 'latest',
    'enable.auto.commit': options.autoCommit ?? false,
    // Offsets are stored for the automatic commits only once their batch is handled (GroupConsumer).
    'enable.auto.offset.store': false,
    'allow.auto.create.topics': false,
    'session.timeout.ms': options.sessionTimeoutMs ?? 10_000,
    ...(options.groupInstanceId ? { 'group.instance.id': options.groupInstanceId } : {}),
    'heartbeat.interval.ms': options.heartbeatIntervalMs ?? 1000,
    'max.poll.interval.ms': maxPollIntervalOf(options),
    'fetch.wait.max.ms': options.maxWaitMs ?? 100,
    ...(options.minBytes ? { 'fetch.min.bytes': options.minBytes } : {}),
    ...(options.maxBytesPerPartition ? { 'max.partition.fetch.bytes': options.maxBytesPerPartition } : {}),
    ...(options.maxQueuedKBytes ? { 'queued.max.messages.kbytes': options.maxQueuedKBytes } : {}),
    'statistics.interval.ms': STATISTICS_INTERVAL_MS,
  };
}
