import {
  AvroInvalidError,
  chunkBySize,
  describeError,
  fitsInBatch,
  maxMessageBytesOf,
  recordSizeBound,
  startConsumer,
  type AvroCodec,
  type GroupMember,
  type GroupSession,
  type EachBatchPayload,
  type Kafka,
  type KafkaMessage,
  type Logger,
  type Message,
  type PartnerDirectory,
  type PolicyStatusEventValue,
} from '@hookstream/shared';
import { planCallbacks, type CallbackPlan, type DeadLetterClass } from '../domain/plan-callbacks';
import { CallbackRequestHeaders } from '@hookstream/shared';
import type { PolicyStatusMetrics } from '../metrics';
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

type Output = { topic: string; message: Message };

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
  private readonly now: () => number;
  /** The most one write may carry (the output topics' smallest max.message.bytes), read at start. */
  private maxWriteBytes = 0;

  constructor(private readonly options: PolicyStatusProcessorOptions) {
    this.logger = options.logger.child({ module: 'policy-status-processor' });
    const cachingKafka = withCachedCoordinators(options.kafka, COORDINATOR_CACHE_MS);
    if (!cachingKafka) this.logger.warn('kafkajs internals changed: coordinator lookups are not cached, so transactions take longer');
    this.transactions = new PartitionTransactions(cachingKafka ?? options.kafka, options.groupId, options.topics.policyStatus);
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    await this.options.partners.whenReady();
    const { callbackRequests, deadLetters } = this.options.topics;
    this.maxWriteBytes = await maxMessageBytesOf(this.options.kafka, [callbackRequests, deadLetters]);
    this.member = await startConsumer({
      kafka: this.options.kafka,
      logger: this.logger,
      config: {
        groupId: this.options.groupId,
        readUncommitted: false,
        ...this.options.session,
        // A fetch waits up to 10 ms for 16 KiB: under load each transaction then carries tens of
        // events instead of ~4 (measured: ~315 transactions/s at 1,000 events/s kept the local
        // broker at a full core); idle, an event waits at most 10 ms more.
        minBytes: 16 * 1024,
        maxWaitTimeInMs: 10,
      },
      topics: [this.options.topics.policyStatus],
      fromBeginning: true,
      run: {
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 16,
        eachBatch: (payload) => this.processBatch(payload),
      },
    });
  }

  /** True while this replica is a member of its group with an assignment (false while it rejoins). */
  get joined(): boolean {
    return this.member?.joined ?? false;
  }

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
      outputs.push(...(await this.writable(batch.partition, message, await this.process(batch.partition, message, unknownPartners))));
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

  /** The records one policy-status record turns into. */
  private async process(partition: number, message: KafkaMessage, unknownPartners: Set<string>): Promise<Output[]> {
    const { metrics, topics } = this.options;
    let event: PolicyStatusEventValue;
    try {
      if (!message.value) throw new AvroInvalidError('the record has no value');
      event = (await this.options.codec.decode(message.value, topics.policyStatus)) as PolicyStatusEventValue;
    } catch (error) {
      if (!(error instanceof AvroInvalidError)) throw error; // the registry is down: retry the batch
      return [await this.deadLetter(partition, message, 'DECODE_ERROR', error.message)];
    }
    const partner = await this.partnerOf(event.partner_id, unknownPartners);
    const plan: CallbackPlan = planCallbacks(event, partner, this.now());
    switch (plan.kind) {
      case 'no-target':
        metrics.events.inc({ outcome: 'no_target' });
        return [];
      case 'dead-letter':
        return [await this.deadLetter(partition, message, plan.errorClass, plan.reason, event)];
      case 'callbacks': {
        metrics.events.inc({ outcome: 'callbacks' });
        metrics.callbackRequests.inc({ partner: event.partner_id }, plan.requests.length);
        return Promise.all(
          plan.requests.map(async (request) => ({
            topic: topics.callbackRequests,
            message: {
              key: request.policy_number,
              value: await this.options.codec.encode(topics.callbackRequests, request),
              // What latest-wins ordering needs, readable without decoding the value (see the sender's LatestVersions).
              headers: {
                [CallbackRequestHeaders.partnerId]: request.partner_id,
                [CallbackRequestHeaders.endpointId]: request.endpoint_id,
                [CallbackRequestHeaders.policyVersion]: String(request.policy_version),
              },
            },
          })),
        );
      }
    }
  }

  /**
   * The outputs of one event if every one of them can be written; otherwise the event goes to the
   * dead-letter topic instead (a record over the limit would fail every transaction that holds it).
   */
  private async writable(partition: number, message: KafkaMessage, outputs: Output[]): Promise<Output[]> {
    const tooLarge = outputs.find((output) => !fitsInBatch(output.message, this.maxWriteBytes));
    if (!tooLarge) return outputs;
    const size = recordSizeBound(tooLarge.message);
    const reason = `a record for ${tooLarge.topic} would take ${size} bytes; the topic accepts at most ${this.maxWriteBytes} (max.message.bytes)`;
    return [await this.deadLetter(partition, message, 'RECORD_TOO_LARGE', reason)];
  }

  /**
   * The partner, waiting a little for one onboarded just before its first event; once per batch
   * (`unknown`), so a batch of events for a partner that does not exist waits once, not per event.
   */
  private async partnerOf(partnerId: string, unknown: Set<string>) {
    const { partners, unknownPartnerGraceMs } = this.options;
    const partner =
      partners.get(partnerId) ?? (unknown.has(partnerId) ? undefined : await partners.waitFor(partnerId, unknownPartnerGraceMs));
    if (!partner) unknown.add(partnerId);
    return partner;
  }

  private async deadLetter(
    partition: number,
    message: KafkaMessage,
    errorClass: DeadLetterClass,
    reason: string,
    event?: PolicyStatusEventValue,
  ): Promise<Output> {
    const { topics, metrics } = this.options;
    metrics.events.inc({ outcome: 'dead_lettered' });
    metrics.deadLetters.inc({ error_class: errorClass });
    this.logger.warn(
      { partition, offset: message.offset, errorClass, eventId: event?.event_id, partnerId: event?.partner_id },
      `policy-status record dead-lettered: ${reason}`,
    );
    const deadLetter = (originalValue: Buffer, why: string) =>
      this.options.codec.encode(topics.deadLetters, {
        original_topic: topics.policyStatus,
        original_partition: partition,
        original_offset: Number(message.offset),
        original_key: message.key ?? null,
        original_value: originalValue,
        reason: why,
        error_class: errorClass,
        failed_at: this.now(),
        event_id: event?.event_id ?? null,
        partner_id: event?.partner_id ?? null,
      });
    const original = message.value ?? Buffer.alloc(0);
    let value = await deadLetter(original, reason);
    if (!fitsInBatch({ key: message.key ?? null, value }, this.maxWriteBytes)) {
      // The copy of the original would not fit: the dead letter points at it instead.
      const note = `${reason}; the original value (${original.length} bytes) is too large to copy here: read it at ${topics.policyStatus} partition ${partition} offset ${message.offset}`;
      value = await deadLetter(Buffer.alloc(0), note);
    }
    return { topic: topics.deadLetters, message: { key: message.key ?? null, value } };
  }
}
