import { setImmediate } from 'node:timers/promises';
import {
  AvroInvalidError,
  describeError,
  sleep,
  startConsumer,
  type AvroCodec,
  type BatchingProducer,
  type Consumer,
  type EachBatchPayload,
  type GroupMember,
  type GroupSession,
  type IHeaders,
  type Kafka,
  type KafkaMessage,
  type Logger,
} from '@hookstream/shared';
import type { CallbackRequest } from '../domain/deliver-callback';
import { RetryHeaders, dueAtOf, headerText, retryHistory, type RetryHistory } from '../domain/retry-route';
import type { Disposition } from '../domain/route-callback';
import type { CallbackSenderMetrics } from '../metrics';
import { DeadLetterIdentityHeaders, deadLetterHeaders } from './dead-letter-headers';
import { PartitionProgress } from './partition-progress';

/** How often a partition's committed offset catches up with the records done. */
const COMMIT_INTERVAL_MS = 100;
/** How long a partition rests after what became of a record could not be written. */
const FAILURE_BACKOFF_MS = 1000;
/**
 * Records started between two turns of the event loop. A record's work up to its first real I/O
 * (decoding, routing, signing; or for a skipped one, its whole outcome) runs in microtasks, so a
 * batch started in one go holds the loop for all of them: 2,000 records of an open-circuit
 * partner coming due together stalled the sender ~100 ms, and every other partner's responses
 * waited. Yielding every few records lets those responses in between.
 */
const RECORDS_PER_TURN = 16;
/** The longest delay setTimeout takes as given (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

export interface CallbackConsumerOptions {
  kafka: Kafka;
  codec: AvroCodec;
  logger: Logger;
  metrics: CallbackSenderMetrics;
  groupId: string;
  /** Session and heartbeat of the group member (they bound failover after a crash). */
  session: GroupSession;
  /** Real topic names; `retry(tier)` is the topic of retry tier 1…n. */
  topics: { requests: string; outcomes: string; deadLetters: string; retry: (tier: number) => string; tiers: number };
  /** Idempotent acks=all producer for outcomes, retries and dead letters. */
  producer: BatchingProducer;
  /** Decides what becomes of one record (domain/route-callback). */
  route: (request: CallbackRequest, history: RetryHistory) => Promise<Disposition>;
  /** Deliveries in flight per partition. */
  partitionConcurrency: number;
  /**
   * What this consumer reads: callback-requests, or the retry tiers. Each is its own consumer
   * group (see main.ts): kafkajs does the work of a fetch for every assigned partition on every
   * fetch, and the tiers' partitions are idle nearly always, so reading them in the requests'
   * fetch loop made that loop's per-fetch work (and garbage) about nine times what the requests
   * need.
   */
  reads: 'requests' | 'retry-tiers';
  /** Longest a fetch waits for records; the tiers', whose delays are seconds, can wait longer. */
  maxWaitTimeInMs: number;
  now?: () => number;
}

/**
 * Reads callback-requests, or the retry tiers, in a consumer group and hands each record to
 * `route`, concurrently across partitions and, within a partition, across policies (one
 * policy's records go one after another, in offset order).
 *
 * A retry record that is not yet due pauses only its own partition: it and the records after it
 * in the batch are held in memory, each started once due, and the partition resumes when none is
 * left (takeTierBatch). Nothing sleeps in the handler, no record is skipped, other partitions go
 * on, and the consumer keeps heartbeating.
 *
 * Records are started without waiting for the ones before them (up to partitionConcurrency in
 * flight per partition), so a slow partner delays only its own records. The committed offset of
 * a partition is the lowest offset still in flight: everything below it has durably written what
 * became of it (outcome, next tier, dead letter; acks=all). A crash repeats deliveries rather than
 * losing them: at least once, every repeat with the same delivery id.
 */
export class CallbackConsumer {
  private consumer: Consumer | undefined;
  private member: GroupMember | undefined;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly tierOfTopic = new Map<string, number>();
  private readonly resumeTimers = new Map<string, NodeJS.Timeout>();
  /** Partitions resting after a failed write (failed()), by topic/partition. */
  private readonly backoffTimers = new Map<string, NodeJS.Timeout>();
  private readonly partitions = new Map<string, PartitionProgress>();
  private generation = 0;
  private stopping = false;

  constructor(private readonly options: CallbackConsumerOptions) {
    this.logger = options.logger.child({ module: 'callback-consumer', reads: options.reads });
    this.now = options.now ?? Date.now;
    for (let tier = 1; tier <= options.topics.tiers; tier++) this.tierOfTopic.set(options.topics.retry(tier), tier);
  }

  async start(): Promise<void> {
    this.member = await startConsumer({
      kafka: this.options.kafka,
      logger: this.logger,
      // read_committed: the policy-status-consumer writes callback requests in transactions.
      config: {
        groupId: this.options.groupId,
        readUncommitted: false,
        ...this.options.session,
        maxWaitTimeInMs: this.options.maxWaitTimeInMs,
        // Smaller fetches on the tiers bound what a paused partition holds in memory (takeTierBatch).
        ...(this.options.reads === 'retry-tiers' ? { maxBytesPerPartition: 64 * 1024 } : {}),
      },
      topics: this.options.reads === 'requests' ? [this.options.topics.requests] : [...this.tierOfTopic.keys()],
      fromBeginning: true,
      beforeRun: (consumer) => {
        consumer.on(consumer.events.GROUP_JOIN, () => {
          // New assignment: work of the old one finishes, but no longer commits (its new owner reads from the last commit).
          this.generation += 1;
          this.partitions.clear();
          this.clearResumeTimers();
          // kafkajs keeps pauses across a rebalance, and the timers that would lift them are gone:
          // every partition is read again from its committed offset, and held again if not due.
          const paused = consumer.paused();
          if (paused.length > 0) consumer.resume(paused);
        });
      },
      run: {
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 32,
        eachBatch: (payload) => this.processBatch(payload),
      },
    });
    this.consumer = this.member.consumer;
  }

  /** True while this replica is a member of its group with an assignment (false while it rejoins). */
  get joined(): boolean {
    return this.member?.joined ?? false;
  }

  async stop(): Promise<void> {
    this.clearResumeTimers();
    this.stopping = true; // no new records start; those in flight finish and are committed
    await this.drain(10_000);
    await this.consumer?.disconnect();
  }

  /** Resumes a partition from a timer: the consumer may have stopped meanwhile (kafkajs then throws). */
  private resumeQuietly(partition: Array<{ topic: string; partitions: number[] }>): void {
    if (this.stopping) return;
    try {
      this.consumer?.resume(partition);
    } catch (error) {
      this.logger.warn({ err: describeError(error) }, 'partition not resumed');
    }
  }

  private clearResumeTimers(): void {
    for (const timer of this.backoffTimers.values()) clearTimeout(timer);
    this.backoffTimers.clear();
    if (this.resumeTimers.size === 0) return; // the gauge is the other consumer's then, or already 0
    for (const timer of this.resumeTimers.values()) clearTimeout(timer);
    this.resumeTimers.clear();
    this.options.metrics.pausedPartitions.set(0);
  }

  private async processBatch(payload: EachBatchPayload) {
    const { batch } = payload;
    const running = () => payload.isRunning() && !payload.isStale() && !this.stopping;
    if (batch.messages.length === 0 || !running()) return;
    const progress = this.progressOf(batch.topic, batch.partition);
    const tier = this.tierOfTopic.get(batch.topic);
    if (tier !== undefined) return this.takeTierBatch(payload, progress, tier);
    let startedThisTurn = 0;
    for (const message of batch.messages) {
      if (startedThisTurn === RECORDS_PER_TURN) {
        await setImmediate();
        startedThisTurn = 0;
      }
      if (!running()) return;
      // Backpressure: at most partitionConcurrency records of this partition in flight.
      while (progress.pending.size >= this.options.partitionConcurrency) {
        await progress.slotFreed();
        await payload.heartbeat();
        if (!running()) return;
      }
      this.begin(progress, message, undefined);
      startedThisTurn += 1;
      // The fetch position moves on; the committed offset follows what is durably done (finish()).
      payload.resolveOffset(message.offset);
    }
    await payload.heartbeat();
  }

  /**
   * A retry tier's batch: its records are held in memory, in offset order, and each is started
   * once due; while any is held, the partition is paused, and it resumes when the last is started.
   * A tier's due times follow its offsets (retry-route's tierAtLeast), so the records a fetch
   * brings come due one after another: each is read once. (Pausing at the first record not yet
   * due and seeking back to it re-read the partition from there at every resume: with a dead
   * partner's backlog coming due at 100 records a second, a 64 KB fetch decoded and discarded for
   * nearly every record.) Held records stay in `pending`, so the committed offset never passes
   * them: a crash or a rebalance re-reads them, and no record is ever started before it is due.
   */
  private async takeTierBatch(payload: EachBatchPayload, progress: PartitionProgress, tier: number): Promise<void> {
    const taken = payload.batch.messages.filter((m) => BigInt(m.offset) > progress.highestTaken);
    if (taken.length === 0) return;
    for (const message of taken) progress.pending.add(BigInt(message.offset));
    progress.held.push(...taken);
    progress.highestTaken = BigInt(taken[taken.length - 1]!.offset);
    // The fetch position moves past what is held; the committed offset stays below it (pending).
    payload.resolveOffset(taken[taken.length - 1]!.offset);
    // Paused at once, not only after the pass below: a pass may wait for a slot, and meanwhile
    // further fetches would pile the partition into memory. The pass resumes it when nothing is held.
    this.consumer?.pause([{ topic: progress.topic, partitions: [progress.partition] }]);
    // Not awaited: a pass may wait for a slot (backpressure), and the fetch loop must not wait with it.
    void this.drainHeld(progress, tier);
    await payload.heartbeat();
  }

  /** Starts the held records now due, one pass at a time; then waits for the next, or resumes the partition. */
  private drainHeld(progress: PartitionProgress, tier: number): Promise<void> {
    progress.drained = progress.drained.then(async () => {
      const alive = () => !this.stopping && !progress.rewound && progress.generation === this.generation;
      let startedThisTurn = 0;
      while (progress.held.length > 0 && alive()) {
        const next = progress.held[0]!;
        if (dueAtOf(next.headers) > this.now()) break;
        if (startedThisTurn === RECORDS_PER_TURN) {
          await setImmediate();
          startedThisTurn = 0;
          continue;
        }
        // Backpressure: at most partitionConcurrency of this partition's records in flight (held ones are not).
        if (progress.pending.size - progress.held.length >= this.options.partitionConcurrency) {
          await progress.slotFreed();
          continue;
        }
        progress.held.shift();
        this.begin(progress, next, tier);
        startedThisTurn += 1;
      }
      if (alive()) this.waitForHeld(progress, tier);
    });
    // A pass cannot fail (begin() settles each record's own errors); the catch keeps the chain going regardless.
    progress.drained = progress.drained.catch((error: unknown) =>
      this.logger.error(
        { topic: progress.topic, partition: progress.partition, err: describeError(error) },
        'held retry records not started',
      ),
    );
    return progress.drained;
  }

  /** Pauses the partition until its first held record is due (or resumes it when none is held). */
  private waitForHeld(progress: PartitionProgress, tier: number): void {
    const id = `${progress.topic}/${progress.partition}`;
    const partition = [{ topic: progress.topic, partitions: [progress.partition] }];
    clearTimeout(this.resumeTimers.get(id));
    this.resumeTimers.delete(id);
    const first = progress.held[0];
    if (first === undefined) {
      this.resumeQuietly(partition);
    } else {
      this.consumer?.pause(partition); // already, unless a failure's backoff resumed it meanwhile
      const dueAt = dueAtOf(first.headers);
      const timer = setTimeout(
        () => {
          this.resumeTimers.delete(id);
          void this.drainHeld(progress, tier);
        },
        // Node fires a longer timeout at once; the pass then finds it not due and waits again.
        Math.min(Math.max(0, dueAt - this.now()), MAX_TIMER_MS),
      );
      this.resumeTimers.set(id, timer);
    }
    this.options.metrics.pausedPartitions.set(this.resumeTimers.size);
  }

  /**
   * Starts one record without waiting for it: records of one policy (the key) are chained one
   * after another; other policies, and so other partners, go side by side. A slow partner holds
   * only its own records, never the partition.
   */
  private begin(progress: PartitionProgress, message: KafkaMessage, tier: number | undefined): void {
    const offset = BigInt(message.offset);
    progress.pending.add(offset);
    progress.highestStarted = offset;
    const key = message.key?.toString('utf8') ?? '';
    const previous = progress.chains.get(key) ?? Promise.resolve();
    const work = previous
      .then(() => this.handle(progress.topic, progress.partition, message, tier))
      .then((writes) => Promise.all(writes))
      .then(
        () => this.finish(progress, offset),
        (error: unknown) => this.failed(progress, offset, error),
      );
    progress.chains.set(key, work);
    void work.then(() => {
      if (progress.chains.get(key) === work) progress.chains.delete(key);
    });
  }

  /** A record is durably done: the committed offset may move up to the lowest one still in flight. */
  private finish(progress: PartitionProgress, offset: bigint): void {
    progress.pending.delete(offset);
    progress.wakeOne();
    this.scheduleCommit(progress);
  }

  /**
   * What became of a record could not be written (Kafka or the registry unavailable): read the
   * partition again from it (later records may repeat, with the same delivery ids).
   */
  private failed(progress: PartitionProgress, offset: bigint, error: unknown): void {
    this.logger.warn(
      { topic: progress.topic, partition: progress.partition, offset: String(offset), err: describeError(error) },
      'callback record not recorded; reading again',
    );
    if (progress.generation !== this.generation || progress.rewound) return;
    progress.rewound = true;
    const partition = [{ topic: progress.topic, partitions: [progress.partition] }];
    // A tier partition's held records are read again too: their wait ends with this progress.
    const id = `${progress.topic}/${progress.partition}`;
    clearTimeout(this.resumeTimers.get(id));
    if (this.resumeTimers.delete(id)) this.options.metrics.pausedPartitions.set(this.resumeTimers.size);
    // From the lowest record not yet durably done, not from the one that failed: a record below it
    // still in flight may fail afterwards, and this progress no longer answers for it.
    let from = offset;
    for (const pending of progress.pending) if (pending < from) from = pending;
    this.consumer?.seek({ topic: progress.topic, partition: progress.partition, offset: String(from) });
    // A second before reading again, rather than a hot loop while Kafka or the registry is away.
    this.consumer?.pause(partition);
    clearTimeout(this.backoffTimers.get(id));
    this.backoffTimers.set(
      id,
      setTimeout(() => {
        this.backoffTimers.delete(id);
        this.resumeQuietly(partition);
      }, FAILURE_BACKOFF_MS).unref(),
    );
    this.partitions.delete(`${progress.topic}/${progress.partition}`);
    progress.pending.clear();
    progress.wakeAll();
  }

  /** Commits the partition's watermark at most every COMMIT_INTERVAL_MS. */
  private scheduleCommit(progress: PartitionProgress): void {
    if (progress.commitTimer || progress.rewound) return;
    progress.commitTimer = setTimeout(() => {
      progress.commitTimer = undefined;
      void this.commit(progress);
    }, COMMIT_INTERVAL_MS);
  }

  private async commit(progress: PartitionProgress): Promise<void> {
    if (progress.generation !== this.generation || progress.rewound || !this.consumer) return;
    let low = progress.highestStarted + 1n;
    for (const offset of progress.pending) if (offset < low) low = offset;
    if (low <= progress.committed) return;
    progress.committed = low;
    await this.consumer
      .commitOffsets([{ topic: progress.topic, partition: progress.partition, offset: low.toString() }])
      .catch((error: unknown) =>
        this.logger.warn(
          { topic: progress.topic, partition: progress.partition, err: describeError(error) },
          'offset commit failed; the records may be delivered again',
        ),
      );
  }

  private progressOf(topic: string, partition: number): PartitionProgress {
    const id = `${topic}/${partition}`;
    let progress = this.partitions.get(id);
    if (!progress) {
      progress = new PartitionProgress(topic, partition, this.generation);
      this.partitions.set(id, progress);
    }
    return progress;
  }

  /** Waits (bounded) for what is in flight to be recorded and committed: on shutdown. */
  private async drain(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // Held tier records are not in flight: they stay uncommitted and are read again after a restart.
    const inFlight = () => [...this.partitions.values()].some((p) => p.pending.size > p.held.length);
    while (inFlight() && Date.now() < deadline) await sleep(20);
    await Promise.all([...this.partitions.values()].map((p) => (clearTimeout(p.commitTimer), this.commit(p))));
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
      metrics.retryLateness.observe({ tier: String(tier) }, Math.max(0, this.now() - dueAtOf(message.headers)) / 1000);
    }
    const partner = request.partner_id;
    metrics.inFlight.inc({ partner });
    const history = retryHistory(message.headers);
    let disposition: Disposition;
    try {
      disposition = await this.options.route(request, history);
    } finally {
      metrics.inFlight.dec({ partner });
    }
    return this.record(topic, partition, message, request, history, disposition);
  }

  private record(
    topic: string,
    partition: number,
    message: KafkaMessage,
    request: CallbackRequest,
    history: RetryHistory,
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
          [RetryHeaders.skips]: String(d.skips),
          // Skipped or failed, the delivery has been waiting since then (the skips' deadline counts from
          // it); a missing, unreadable or future value starts the wait now, so the deadline always applies.
          [RetryHeaders.firstFailureAt]: String(Math.min(history.firstFailureAt ?? now, now)),
        };
        if (d.skipped) {
          metrics.attempts.inc({ partner, outcome: 'skipped_circuit_open' });
        } else {
          observe(d.latencyMs);
          metrics.attempts.inc({ partner, outcome: 'failed' });
          metrics.retries.inc({ tier: String(d.tier) });
          headers[RetryHeaders.lastFailureAt] = String(now);
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
