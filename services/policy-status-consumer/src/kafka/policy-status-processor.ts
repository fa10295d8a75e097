import {
  chunkBySize,
  describeError,
  maxMessageBytesOf,
  recordSizeBound,
  startManualCommitConsumer,
  type AvroCodec,
  type EachBatchPayload,
  type GroupMember,
  type GroupSession,
  type Kafka,
  type Logger,
  type Message,
  type PartnerDirectory,
} from '@hookstream/shared';
import type { PolicyStatusMetrics } from '../metrics';
import { EventRecords, type Output } from './event-records';
import { withCachedCoordinators } from './cached-coordinators';
import { PartitionTransactions } from './partition-transactions';

/** How long a transactional producer trusts a coordinator lookup (see cached-coordinators.ts). */
const COORDINATOR_CACHE_MS = 5_000;

export interface PolicyStatusProcessorOptions {
  kafka: Kafka;
  codec: AvroCodec;
  partners: PartnerDirectory;
  logger: Logger;
  metrics: PolicyStatusMetrics;
  /** Real topic names. */
  topics: { policyStatus: string; callbackRequests: string; deadLetters: string };
  groupId: string;
  session: GroupSession;
  /** How long an event for an unknown partner waits for partner-config to learn it. */
  unknownPartnerGraceMs: number;
  now?: () => number;
}

/** The records of one output chunk, grouped by topic as kafkajs's sendBatch takes them. */
function byTopic(outputs: Output[]): Array<{ topic: string; messages: Message[] }> {
  const grouped = new Map<string, Message[]>();
  for (const { topic, message } of outputs) {
    const messages = grouped.get(topic);
    if (messages) messages.push(message);
    else grouped.set(topic, [message]);
  }
  return [...grouped].map(([topic, messages]) => ({ topic, messages }));
}

/**
 * Consume-transform-produce from policy-status to callback-requests, exactly once: each batch
 * of a partition becomes one Kafka transaction holding its callback requests, its dead letters
 * and the consumed offsets. A crash anywhere before the commit aborts all of it (the next owner
 * of the partition fences the transactional id) and the batch is read again; after the commit,
 * nothing of it is read again. Readers of callback-requests use read_committed.
 *
 * Records that can never be processed (undecodable, unknown or disabled partner, a body the
 * mapping cannot build, a callback request larger than the broker accepts) go to the dead-letter
 * topic with the reason, in the same transaction, and the partition moves on. Anything else
 * (Kafka or the registry unavailable) fails the batch, which is retried from the last committed
 * offset.
 *
 * A batch's writes are sent in chunks under the output topics' `max.message.bytes` (read from the
 * cluster at start): a backlog fetches batches of a megabyte of events, whose callback requests
 * (one per endpoint, each larger than its event) would otherwise exceed the broker's limit in one
 * produce request, fail the transaction, and be read again for ever.
 */
export class PolicyStatusProcessor {
  private member: GroupMember | undefined;
  private readonly transactions: PartitionTransactions;
  private readonly logger: Logger;
  /** Set at start, once the output topics' write limit is known. */
  private records: EventRecords | undefined;
  private maxWriteBytes = 0;

  constructor(private readonly options: PolicyStatusProcessorOptions) {
    this.logger = options.logger.child({ module: 'policy-status-processor' });
    const cachingKafka = withCachedCoordinators(options.kafka.kafkajs, COORDINATOR_CACHE_MS);
    if (!cachingKafka) this.logger.warn('kafkajs internals changed: coordinator lookups are not cached, so transactions take longer');
    this.transactions = new PartitionTransactions(cachingKafka ?? options.kafka.kafkajs, options.groupId, options.topics.policyStatus);
  }

  async start(): Promise<void> {
    await this.options.partners.whenReady();
    const { callbackRequests, deadLetters } = this.options.topics;
    this.maxWriteBytes = await maxMessageBytesOf(this.options.kafka, [callbackRequests, deadLetters]);
    const { codec, partners, metrics, topics, unknownPartnerGraceMs } = this.options;
    const now = this.options.now ?? Date.now;
    this.records = new EventRecords({
      codec,
      partners,
      logger: this.logger,
      metrics,
      topics,
      unknownPartnerGraceMs,
      maxWriteBytes: this.maxWriteBytes,
      now,
    });
    this.member = await startManualCommitConsumer({
      kafka: this.options.kafka,
      logger: this.logger,
      groupId: this.options.groupId,
      session: this.options.session,
      topics: [this.options.topics.policyStatus],
      // A fetch waits up to 10 ms for 16 KiB: under load each transaction then carries tens of
      // events instead of ~4 (measured: ~315 transactions/s at 1,000 events/s kept the local
      // broker at a full core); idle, an event waits at most 10 ms more.
      fetch: { minBytes: 16 * 1024, maxWaitTimeInMs: 10 },
      partitionsConsumedConcurrently: 16,
      eachBatch: (payload) => this.processBatch(payload),
    });
  }

  /** True while this replica is a member of its group with an assignment (false while it rejoins). */
  get joined(): boolean {
    return this.member?.joined ?? false;
  }

  /**
   * Fetches nothing more; the batch in flight hands itself back if its transaction has not opened,
   * else its transaction commits or aborts (kafkajs waits for it); then leaves the group and closes
   * the transactional producers.
   */
  async stop(): Promise<void> {
    await this.member?.consumer.disconnect();
    await this.transactions.disconnect();
  }

  private async processBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    if (batch.messages.length === 0 || !payload.isRunning() || payload.isStale()) return;
    const outputs: Output[] = [];
    const unknownPartners = new Set<string>();
    for (const message of batch.messages) {
      // Stopping, or the partition moved: the batch goes back before its transaction opens, and is read again by the partition's owner.
      if (!payload.isRunning() || payload.isStale()) return;
      outputs.push(...(await this.records!.of(batch.partition, message, unknownPartners)));
      // A backlog's batch takes a while: stay in the group (sent only once the heartbeat interval has passed).
      await payload.heartbeat();
    }
    const last = batch.messages[batch.messages.length - 1]!.offset;

    const producer = await this.transactions.producerFor(batch.partition);
    const started = process.hrtime.bigint();
    const transaction = await producer.transaction();
    try {
      // One produce request per chunk, in order: every record batch of it fits the broker's limit.
      for (const chunk of chunkBySize(outputs, (output) => recordSizeBound(output.message), this.maxWriteBytes)) {
        await transaction.sendBatch({ topicMessages: byTopic(chunk), acks: -1 });
      }
      await transaction.sendOffsets({
        consumerGroupId: this.options.groupId,
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(last) + 1n).toString() }] }],
      });
      await transaction.commit();
    } catch (error) {
      this.logger.warn({ partition: batch.partition, err: describeError(error) }, 'transaction failed; the batch will be read again');
      await transaction.abort().catch(() => undefined);
      await this.transactions.discard(batch.partition);
      throw error;
    }
    this.options.metrics.transactionSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    payload.resolveOffset(last);
    await payload.heartbeat();
  }
}
