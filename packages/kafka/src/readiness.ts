import { randomUUID } from 'node:crypto';
import type { Kafka } from './client';
import { sleep, sleepUnlessAborted, withTimeout } from '@hookstream/runtime';
import { isRetryableKafkaError } from './retryable';
import { clusterReplicationFactor } from './topic-admin';

export interface KafkaProbeOptions {
  /** Give up after this many ms. Default 60000. */
  timeoutMs?: number;
  /** Topic used by the probe (created with one partition if missing). Default `__hookstream-readiness`. */
  topic?: string;
  /** Ends the wait at once (rejecting with the signal's reason): an interrupt, or a failed start elsewhere. */
  signal?: AbortSignal;
}

/**
 * Waits until Kafka really serves what Hookstream needs, not only an open port: metadata,
 * a consumer group join through the group coordinator, and a committed transaction through
 * the transaction coordinator. Right after start the broker answers "coordinator is
 * loading" for a second or two: those answers are retried until the deadline.
 */
export async function waitForKafkaReady(kafka: Kafka, options: KafkaProbeOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const topic = options.topic ?? '__hookstream-readiness';
  let lastError: unknown;
  const { signal } = options;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    try {
      await probeOnce(kafka, topic, deadline);
      return;
    } catch (error) {
      signal?.throwIfAborted();
      lastError = error;
      if (!isRetryableKafkaError(error) && !/coordinator|timed? ?out|ECONNREFUSED|not ready/i.test(String(error))) throw error;
      await (signal ? sleepUnlessAborted(250, signal) : sleep(250));
    }
  }
  throw new Error(`Kafka was not ready in time: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
}

/**
 * One probe. Each client connects inside its `try`: a connect that fails (a transactional producer
 * whose producer id a loading coordinator refuses) leaves librdkafka's client running until it is
 * disconnected, and a process with one running cannot exit.
 */
async function probeOnce(kafka: Kafka, topic: string, deadline: number): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const topics = await admin.listTopics();
    if (!topics.includes(topic)) {
      // As many replicas as the cluster's own topics: with one, the probe's partition would lose its
      // leader with its broker, and readiness would fail for as long as that one broker is away.
      const replicationFactor = await clusterReplicationFactor(admin);
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor }] });
    }
  } finally {
    await admin.disconnect();
  }

  // Transaction coordinator: one committed transaction.
  const producer = kafka.producer({ transactionalId: `hookstream-readiness-${randomUUID()}` });
  try {
    await producer.connect();
    const tx = await producer.transaction();
    try {
      await tx.send({ topic, messages: [{ key: 'probe', value: 'probe' }] });
      await tx.commit();
    } catch (error) {
      await tx.abort().catch(() => undefined);
      throw error;
    }
  } finally {
    await producer.disconnect();
  }

  // Group coordinator: a consumer joins a group and is assigned the partition.
  let assigned: () => void = () => undefined;
  const joined = new Promise<void>((resolve) => (assigned = resolve));
  const consumer = kafka.consumer({
    groupId: `hookstream-readiness-${randomUUID()}`,
    fromBeginning: true,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    onRebalance: (event) => (event === 'assigned' ? assigned() : undefined),
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({ eachMessage: () => Promise.resolve() });
    const remaining = Math.max(1000, deadline - Date.now());
    await withTimeout(joined, remaining, 'group join timed out');
  } finally {
    await consumer.disconnect();
  }
}
