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
  type OutgoingRecord,
} from '@hookstream/shared';
import type { CallbackRequest, DeliveryOutcome } from '../domain/deliver-callback';
import { RetryHeaders, attemptsSoFar, headerText, routeAfterFailure } from '../domain/retry-route';
import type { CallbackSenderMetrics } from '../metrics';
import { deadLetterHeaders } from './dead-letter-headers';

export interface CallbackConsumerOptions {
  kafka: Kafka;
  codec: AvroCodec;
  logger: Logger;
  metrics: CallbackSenderMetrics;
  groupId: string;
  /** Real topic names; `retry(tier)` is the topic of retry tier 1…n. */
  topics: { source: string; outcomes: string; deadLetters: string; retry: (tier: number) => string };
  /** Idempotent acks=all producer for outcomes, retries and dead letters. */
  producer: BatchingProducer;
  deliver: (request: CallbackRequest, attempt: number) => Promise<DeliveryOutcome>;
  /** Delay of each retry tier, in ms; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  /** Deliveries in flight per partition. */
  partitionConcurrency: number;
  now?: () => number;
}

/**
 * Reads callback records and delivers them, concurrently across partitions and, within a
 * partition, across policies (one policy's records go one after another, in offset order).
 * A record's offset is committed only once its outcome (and its next retry tier or dead letter)
 * is durably written (acks=all), so a crash at any moment repeats deliveries rather than losing
 * them: at least once, every repeat with the same delivery id.
 */
export class CallbackConsumer {
  private consumer: Consumer | undefined;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(private readonly options: CallbackConsumerOptions) {
    this.logger = options.logger.child({ module: 'callback-consumer', topic: options.topics.source });
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.consumer = await startConsumer({
      kafka: this.options.kafka,
      logger: this.logger,
      // read_committed: the policy-status-consumer writes callback requests in transactions.
      config: { groupId: this.options.groupId, readUncommitted: false, sessionTimeout: 30_000, maxWaitTimeInMs: 100 },
      topics: [this.options.topics.source],
      fromBeginning: true,
      run: {
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 16,
        eachBatch: (payload) => this.processBatch(payload),
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }

  private async processBatch(payload: EachBatchPayload) {
    const { batch } = payload;
    const running = () => payload.isRunning() && !payload.isStale();
    if (batch.messages.length === 0) return;
    // One lane per policy (the record key): in order within a lane, lanes side by side.
    const lanes = new Map<string, KafkaMessage[]>();
    for (const message of batch.messages) {
      const key = message.key?.toString('utf8') ?? '';
      lanes.set(key, [...(lanes.get(key) ?? []), message]);
    }
    const queue = [...lanes.values()];
    const writes: Array<Promise<unknown>> = [];
    const worker = async () => {
      for (let lane = queue.shift(); lane; lane = queue.shift()) {
        for (const message of lane) {
          if (!running()) return;
          writes.push(...(await this.handle(batch.partition, message)));
          await payload.heartbeat();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.partitionConcurrency, queue.length) }, worker));
    await Promise.all(writes); // a failed write throws: the batch is read again from the last commit
    if (!running()) return;
    payload.resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
    await payload.commitOffsetsIfNecessary();
  }

  /** Delivers one record; returns the writes that record its outcome. */
  private async handle(partition: number, message: KafkaMessage): Promise<Array<Promise<unknown>>> {
    const { topics, codec } = this.options;
    let request: CallbackRequest;
    try {
      if (!message.value) throw new AvroInvalidError('the record has no value');
      request = (await codec.decode(message.value, topics.source)) as CallbackRequest;
    } catch (error) {
      if (!(error instanceof AvroInvalidError)) throw error; // the registry is down: the batch is read again
      this.logger.error({ partition, offset: message.offset, err: describeError(error) }, 'undecodable callback record: dead-lettered');
      this.options.metrics.deadLetters.inc({ partner: 'unknown', error_class: 'DECODE_ERROR' });
      return [this.send(topics.deadLetters, message, message.value, this.dlqHeaders(partition, message, 'DECODE_ERROR', error.message))];
    }
    const attempt = attemptsSoFar(message.headers) + 1;
    const labels = { partner: request.partner_id };
    this.options.metrics.inFlight.inc(labels);
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.options.deliver(request, attempt);
    } finally {
      this.options.metrics.inFlight.dec(labels);
    }
    return this.record(partition, message, request, attempt, outcome);
  }

  private record(partition: number, message: KafkaMessage, request: CallbackRequest, attempt: number, outcome: DeliveryOutcome) {
    const { metrics, topics } = this.options;
    const now = this.now();
    const writes: Array<Promise<unknown>> = [];
    const outcomeRecord = (kind: string, httpStatus: number | null, errorClass: string | null, latencyMs: number | null) =>
      this.options.codec
        .encode(topics.outcomes, {
          delivery_id: request.delivery_id,
          event_id: request.event_id,
          partner_id: request.partner_id,
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

    if (outcome.kind !== 'undeliverable' && outcome.latencyMs !== null) {
      metrics.attemptSeconds.observe({ partner: request.partner_id }, outcome.latencyMs / 1000);
    }
    if (outcome.kind === 'delivered') {
      metrics.attempts.inc({ partner: request.partner_id, outcome: 'delivered' });
      writes.push(outcomeRecord('DELIVERED', outcome.httpStatus, null, outcome.latencyMs));
      return writes;
    }
    const lastError =
      outcome.kind === 'failed' && outcome.httpStatus !== null ? `HTTP ${outcome.httpStatus}` : `${outcome.errorClass}: ${outcome.detail}`;
    const route =
      outcome.kind === 'failed' ? routeAfterFailure(attempt, this.options.retryDelaysMs, now) : ({ kind: 'dead-letter' } as const);
    if (outcome.kind === 'failed') {
      metrics.attempts.inc({ partner: request.partner_id, outcome: 'failed' });
      writes.push(outcomeRecord('FAILED_ATTEMPT', outcome.httpStatus, outcome.errorClass, outcome.latencyMs));
    }
    this.logger.info(
      {
        partnerId: request.partner_id,
        deliveryId: request.delivery_id,
        attempt,
        error: lastError,
        next: route.kind === 'retry' ? `retry-${route.tier}` : 'dlq',
      },
      'callback attempt failed',
    );
    if (route.kind === 'retry') {
      writes.push(
        this.send(
          topics.retry(route.tier),
          message,
          message.value,
          this.retryHeaders(partition, message, attempt, now, route.dueAt, lastError),
        ),
      );
    } else {
      metrics.deadLetters.inc({ partner: request.partner_id, error_class: outcome.errorClass });
      writes.push(outcomeRecord('DEAD_LETTERED', outcome.kind === 'failed' ? outcome.httpStatus : null, outcome.errorClass, null));
      const headers = {
        ...this.retryHeaders(partition, message, attempt, now, now, lastError),
        ...this.dlqHeaders(partition, message, outcome.errorClass, lastError),
      };
      writes.push(this.send(topics.deadLetters, message, message.value, headers));
    }
    return writes;
  }

  private send(topic: string, message: KafkaMessage, value: Buffer | null, headers: IHeaders): Promise<unknown> {
    const record: OutgoingRecord = { topic, key: message.key ?? null, value, headers };
    return this.options.producer.send(record);
  }

  /** Retry metadata: carried over from earlier tiers, updated with this failure. */
  private retryHeaders(partition: number, message: KafkaMessage, attempt: number, now: number, dueAt: number, lastError: string): IHeaders {
    const carried = (name: string, fallback: string) => headerText(message.headers, name) ?? fallback;
    return {
      [RetryHeaders.attempts]: String(attempt),
      [RetryHeaders.dueAt]: String(dueAt),
      [RetryHeaders.firstFailureAt]: carried(RetryHeaders.firstFailureAt, String(now)),
      [RetryHeaders.lastFailureAt]: String(now),
      [RetryHeaders.lastError]: lastError.slice(0, 500),
      [RetryHeaders.originalTopic]: carried(RetryHeaders.originalTopic, this.options.topics.source),
      [RetryHeaders.originalPartition]: carried(RetryHeaders.originalPartition, String(partition)),
      [RetryHeaders.originalOffset]: carried(RetryHeaders.originalOffset, message.offset),
    };
  }

  private dlqHeaders(partition: number, message: KafkaMessage, errorClass: string, reason: string): IHeaders {
    return deadLetterHeaders({
      originalTopic: headerText(message.headers, RetryHeaders.originalTopic) ?? this.options.topics.source,
      originalPartition: Number(headerText(message.headers, RetryHeaders.originalPartition) ?? partition),
      originalOffset: BigInt(headerText(message.headers, RetryHeaders.originalOffset) ?? message.offset),
      originalTimestamp: BigInt(message.timestamp),
      errorClass,
      reason,
    });
  }
}
