import {
  AvroInvalidError,
  describeError,
  startConsumer,
  type AvroCodec,
  type BatchingProducer,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type Kafka,
  type KafkaMessage,
  type Logger,
} from '@hookstream/shared';
import type { CallbackRequest } from '../domain/deliver-callback';
import { RetryHeaders, attemptsSoFar, headerText } from '../domain/retry-route';
import type { Disposition } from '../domain/route-callback';
import type { CallbackSenderMetrics } from '../metrics';
import { DeadLetterIdentityHeaders, deadLetterHeaders } from './dead-letter-headers';

export interface CallbackConsumerOptions {
  kafka: Kafka;
  codec: AvroCodec;
  logger: Logger;
  metrics: CallbackSenderMetrics;
  groupId: string;
  /** Real topic names; `retry(tier)` is the topic of retry tier 1…n. */
  topics: { requests: string; outcomes: string; deadLetters: string; retry: (tier: number) => string; tiers: number };
  /** Idempotent acks=all producer for outcomes, retries and dead letters. */
  producer: BatchingProducer;
  /** Decides what becomes of one record (domain/route-callback). */
  route: (request: CallbackRequest, attemptsSoFar: number) => Promise<Disposition>;
  /** Deliveries in flight per partition. */
  partitionConcurrency: number;
  now?: () => number;
}

/**
 * Reads callback-requests and the retry tiers in one consumer group and hands each record to
 * `route`, concurrently across partitions and, within a partition, across policies (one
 * policy's records go one after another, in offset order).
 *
 * A retry record that is not yet due pauses only its own partition: the records before it are
 * handled and committed, the consumer seeks back to it, and a timer resumes the partition at its
 * due time. Nothing sleeps in the handler, no record is skipped, other partitions go on, and the
 * consumer keeps heartbeating.
 *
 * A record's offset is committed only once what became of it (outcome, next tier, dead letter)
 * is durably written (acks=all), so a crash repeats a delivery rather than losing it: at least
 * once, every repeat with the same delivery id.
 */
export class CallbackConsumer {
  private consumer: Consumer | undefined;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly tierOfTopic = new Map<string, number>();
  private readonly resumeTimers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly options: CallbackConsumerOptions) {
    this.logger = options.logger.child({ module: 'callback-consumer' });
    this.now = options.now ?? Date.now;
    for (let tier = 1; tier <= options.topics.tiers; tier++) this.tierOfTopic.set(options.topics.retry(tier), tier);
  }

  async start(): Promise<void> {
    this.consumer = await startConsumer({
      kafka: this.options.kafka,
      logger: this.logger,
      // read_committed: the policy-status-consumer writes callback requests in transactions.
      config: { groupId: this.options.groupId, readUncommitted: false, sessionTimeout: 30_000, maxWaitTimeInMs: 100 },
      topics: [this.options.topics.requests, ...this.tierOfTopic.keys()],
      fromBeginning: true,
      beforeRun: (consumer) => {
        // A rebalance forgets pauses; their timers are dropped with them.
        consumer.on(consumer.events.GROUP_JOIN, () => this.clearResumeTimers());
      },
      run: {
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 32,
        eachBatch: (payload) => this.processBatch(payload),
      },
    });
  }

  async stop(): Promise<void> {
    this.clearResumeTimers();
    await this.consumer?.disconnect();
  }

  private clearResumeTimers(): void {
    for (const timer of this.resumeTimers.values()) clearTimeout(timer);
    this.resumeTimers.clear();
    this.options.metrics.pausedPartitions.set(0);
  }

  private async processBatch(payload: EachBatchPayload) {
    const { batch } = payload;
    const running = () => payload.isRunning() && !payload.isStale();
    if (batch.messages.length === 0) return;
    const tier = this.tierOfTopic.get(batch.topic);
    const now = this.now();
    // Retry tiers: only the records already due; the first one that is not stops the batch there.
    let due = batch.messages;
    if (tier !== undefined) {
      const firstNotDue = batch.messages.findIndex((m) => Number(headerText(m.headers, RetryHeaders.dueAt) ?? 0) > now);
      if (firstNotDue >= 0) due = batch.messages.slice(0, firstNotDue);
    }

    const lanes = new Map<string, KafkaMessage[]>();
    for (const message of due) {
      const key = message.key?.toString('utf8') ?? '';
      lanes.set(key, [...(lanes.get(key) ?? []), message]);
    }
    const queue = [...lanes.values()];
    const writes: Array<Promise<unknown>> = [];
    const worker = async () => {
      for (let lane = queue.shift(); lane; lane = queue.shift()) {
        for (const message of lane) {
          if (!running()) return;
          writes.push(...(await this.handle(batch.topic, batch.partition, message, tier)));
          await payload.heartbeat();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.partitionConcurrency, queue.length) }, worker));
    await Promise.all(writes); // a failed write throws: the batch is read again from the last commit
    if (!running()) return;
    if (due.length > 0) payload.resolveOffset(due[due.length - 1]!.offset);
    await payload.commitOffsetsIfNecessary();
    if (due.length < batch.messages.length) this.pauseUntilDue(payload, batch.messages[due.length]!);
  }

  /** Pauses the batch's partition, to be read again from `next` once it is due. */
  private pauseUntilDue(payload: EachBatchPayload, next: KafkaMessage): void {
    const { topic, partition } = payload.batch;
    const dueAt = Number(headerText(next.headers, RetryHeaders.dueAt) ?? 0);
    const resume = payload.pause();
    this.consumer?.seek({ topic, partition, offset: next.offset });
    const id = `${topic}/${partition}`;
    clearTimeout(this.resumeTimers.get(id));
    this.resumeTimers.set(
      id,
      setTimeout(
        () => {
          this.resumeTimers.delete(id);
          this.options.metrics.pausedPartitions.set(this.resumeTimers.size);
          resume();
        },
        Math.max(0, dueAt - this.now()),
      ),
    );
    this.options.metrics.pausedPartitions.set(this.resumeTimers.size);
  }

  /** Handles one record; returns the writes that record what became of it. */
  private async handle(
    topic: string,
    partition: number,
    message: KafkaMessage,
    tier: number | undefined,
  ): Promise<Array<Promise<unknown>>> {
    const { topics, codec, metrics } = this.options;
    let request: CallbackRequest;
    try {
      if (!message.value) throw new AvroInvalidError('the record has no value');
      request = (await codec.decode(message.value, topics.requests)) as CallbackRequest;
    } catch (error) {
      if (!(error instanceof AvroInvalidError)) throw error; // the registry is down: the batch is read again
      this.logger.error(
        { topic, partition, offset: message.offset, err: describeError(error) },
        'undecodable callback record: dead-lettered',
      );
      metrics.deadLetters.inc({ partner: 'unknown', error_class: 'DECODE_ERROR' });
      const why = { errorClass: 'DECODE_ERROR', reason: error.message };
      return [
        this.produce(topics.deadLetters, message, {
          ...this.carriedHeaders(topic, partition, message),
          ...this.dlqHeaders(topic, partition, message, why),
        }),
      ];
    }
    if (tier !== undefined) {
      const dueAt = Number(headerText(message.headers, RetryHeaders.dueAt) ?? 0);
      metrics.retryLateness.observe({ tier: String(tier) }, Math.max(0, this.now() - dueAt) / 1000);
    }
    const partner = request.partner_id;
    metrics.inFlight.inc({ partner });
    let disposition: Disposition;
    try {
      disposition = await this.options.route(request, attemptsSoFar(message.headers));
    } finally {
      metrics.inFlight.dec({ partner });
    }
    return this.record(topic, partition, message, request, disposition);
  }

  private record(
    topic: string,
    partition: number,
    message: KafkaMessage,
    request: CallbackRequest,
    d: Disposition,
  ): Array<Promise<unknown>> {
    const { metrics, topics } = this.options;
    const partner = request.partner_id;
    const now = this.now();
    const outcome = (kind: string, attempt: number, httpStatus: number | null, errorClass: string | null, latencyMs: number | null) =>
      this.options.codec
        .encode(topics.outcomes, {
          delivery_id: request.delivery_id,
          event_id: request.event_id,
          partner_id: partner,
          endpoint_id: request.endpoint_id,
          policy_number: request.policy_number,
          policy_version: request.policy_version,
          attempt,
          outcome: kind,
          http_status: httpStatus,
          error_class: errorClass,
          latency_ms: latencyMs,
          recorded_at: now,
        })
        .then((value) => this.options.producer.send({ topic: topics.outcomes, key: request.policy_number, value }));
    const observe = (latencyMs: number | null) => latencyMs !== null && metrics.attemptSeconds.observe({ partner }, latencyMs / 1000);

    switch (d.kind) {
      case 'delivered':
        observe(d.latencyMs);
        metrics.attempts.inc({ partner, outcome: 'delivered' });
        return [outcome('DELIVERED', d.attempt, d.httpStatus, null, d.latencyMs)];
      case 'superseded':
        metrics.superseded.inc({ partner });
        return [outcome('SUPERSEDED', d.attempts, null, null, null)];
      case 'retry': {
        const headers: IHeaders = {
          ...this.carriedHeaders(topic, partition, message),
          [RetryHeaders.attempts]: String(d.attempts),
          [RetryHeaders.dueAt]: String(d.dueAt),
        };
        if (d.skipped) {
          metrics.attempts.inc({ partner, outcome: 'skipped_circuit_open' });
        } else {
          observe(d.latencyMs);
          metrics.attempts.inc({ partner, outcome: 'failed' });
          metrics.retries.inc({ tier: String(d.tier) });
          headers[RetryHeaders.lastFailureAt] = String(now);
          headers[RetryHeaders.firstFailureAt] = headerText(message.headers, RetryHeaders.firstFailureAt) ?? String(now);
          headers[RetryHeaders.lastError] = (d.lastError ?? '').slice(0, 500);
          this.logger.info(
            { partnerId: partner, deliveryId: request.delivery_id, attempt: d.attempts, error: d.lastError, tier: d.tier },
            'callback attempt failed',
          );
        }
        return [
          outcome(
            d.skipped ? 'SKIPPED_CIRCUIT_OPEN' : 'FAILED_ATTEMPT',
            d.skipped ? d.attempts + 1 : d.attempts,
            d.httpStatus,
            d.errorClass,
            d.latencyMs,
          ),
          this.produce(topics.retry(d.tier), message, headers),
        ];
      }
      case 'dead-letter': {
        observe(d.latencyMs);
        metrics.deadLetters.inc({ partner, error_class: d.errorClass });
        if (d.latencyMs !== null) metrics.attempts.inc({ partner, outcome: 'failed' });
        this.logger.warn(
          { partnerId: partner, deliveryId: request.delivery_id, attempts: d.attempts, errorClass: d.errorClass },
          `callback dead-lettered: ${d.reason}`,
        );
        const headers: IHeaders = {
          ...this.carriedHeaders(topic, partition, message),
          [RetryHeaders.attempts]: String(d.attempts),
          [RetryHeaders.lastFailureAt]: String(now),
          [RetryHeaders.firstFailureAt]: headerText(message.headers, RetryHeaders.firstFailureAt) ?? String(now),
          [RetryHeaders.lastError]: d.reason.slice(0, 500),
          [DeadLetterIdentityHeaders.partnerId]: partner,
          [DeadLetterIdentityHeaders.eventId]: request.event_id,
          [DeadLetterIdentityHeaders.deliveryId]: request.delivery_id,
          ...this.dlqHeaders(topic, partition, message, d),
        };
        return [
          ...(d.latencyMs !== null ? [outcome('FAILED_ATTEMPT', d.attempts, d.httpStatus, d.errorClass, d.latencyMs)] : []),
          outcome('DEAD_LETTERED', d.attempts, d.httpStatus, d.errorClass, null),
          this.produce(topics.deadLetters, message, headers),
        ];
      }
    }
  }

  private produce(topic: string, message: KafkaMessage, headers: IHeaders): Promise<unknown> {
    return this.options.producer.send({ topic, key: message.key ?? null, value: message.value, headers });
  }

  /** Where the delivery was first read, and its identity, carried from tier to tier. */
  private carriedHeaders(topic: string, partition: number, message: KafkaMessage): IHeaders {
    const carried = (name: string, fallback: string) => headerText(message.headers, name) ?? fallback;
    const fresh = this.tierOfTopic.get(topic) === undefined;
    return {
      ...message.headers,
      [RetryHeaders.originalTopic]: fresh ? topic : carried(RetryHeaders.originalTopic, topic),
      [RetryHeaders.originalPartition]: fresh ? String(partition) : carried(RetryHeaders.originalPartition, String(partition)),
      [RetryHeaders.originalOffset]: fresh ? message.offset : carried(RetryHeaders.originalOffset, message.offset),
    };
  }

  private dlqHeaders(topic: string, partition: number, message: KafkaMessage, why: { errorClass: string; reason: string }): IHeaders {
    const original = this.carriedHeaders(topic, partition, message);
    return deadLetterHeaders({
      originalTopic: String(original[RetryHeaders.originalTopic]),
      originalPartition: Number(String(original[RetryHeaders.originalPartition])),
      originalOffset: BigInt(String(original[RetryHeaders.originalOffset])),
      originalTimestamp: BigInt(message.timestamp),
      errorClass: why.errorClass,
      reason: why.reason,
    });
  }
}
