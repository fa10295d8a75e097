import { KafkaUnavailableError, describeError } from '@hookstream/errors';
import { type AvroCodec, type Producer } from '@hookstream/kafka';
import { type Counter, type Logger } from '@hookstream/runtime';
import type { AnswerRecorder } from '../../domain/answer-recorder';
import { PartnerTokenBuckets, type TokenBucketLimits } from './partner-token-buckets';

/**
 * Answers of one kind a partner may have recorded per ingress replica: 20 at once (a burst of bad
 * requests from one broken release, or of retries, shows whole), then one a second (a partner
 * refused all day still gets tens of thousands, enough to see why, while a flood cannot fill the
 * topic or the delivery log).
 */
export const PARTNER_RECORD_LIMITS: TokenBucketLimits = { burst: 20, perSecond: 1 };

/**
 * Records written but not yet acknowledged, on all partners together: while Kafka is slow or away
 * they wait in memory (at most ~2 KB each), so this bounds what that costs; beyond it they are dropped.
 */
export const MAX_UNSENT_RECORDS = 1000;

/** A failure to write is logged at most this often (with how many since): a Kafka outage would otherwise log once per refusal. */
const FAILURE_LOG_INTERVAL_MS = 60_000;

/** Why a record was not written: over its partner's bucket, over the unsent cap, or the write (or its encoding) failed. */
const DROP_REASONS = ['partner_limit', 'unsent_limit', 'publish_failed'] as const;
type DropReason = (typeof DROP_REASONS)[number];

export interface BoundedPublisherOptions<Described, Value> {
  /** A producer of its own: the webhooks' producer never queues behind these records. */
  producer: Producer;
  codec: AvroCodec;
  /** Real name of the topic (its schema registered). */
  topic: string;
  /** The record value of what the domain described: its id and the replica's added. */
  stamp: (described: Described) => Value;
  /** What the records are, for the failure log ("refused webhooks"). */
  what: string;
  logger: Logger;
  /** Records written, and records dropped by reason. */
  recorded: Counter<string>;
  dropped: Counter<'reason'>;
  limits?: TokenBucketLimits;
  maxUnsent?: number;
  /** Monotonic milliseconds, for the buckets and the failure log. */
  nowMs?: () => number;
}

/**
 * Writes what the ingress answered a partner (a refusal, a replay) to its topic, keyed by partner
 * id, without ever making an answer wait: `record` only checks the bounds and hands the record to
 * the producer. What is not written is counted by reason.
 */
export class BoundedPublisher<Described, Value extends { partner_id: string }> implements AnswerRecorder<Described> {
  private readonly buckets: PartnerTokenBuckets;
  private readonly maxUnsent: number;
  private readonly nowMs: () => number;
  private readonly logger: Logger;
  private readonly unsent = new Set<Promise<void>>();
  private failuresSinceLog = 0;
  private lastFailureLogMs = -Infinity;

  constructor(private readonly options: BoundedPublisherOptions<Described, Value>) {
    this.nowMs = options.nowMs ?? (() => performance.now());
    this.buckets = new PartnerTokenBuckets(options.limits ?? PARTNER_RECORD_LIMITS, this.nowMs);
    this.maxUnsent = options.maxUnsent ?? MAX_UNSENT_RECORDS;
    this.logger = options.logger.child({ module: 'answer-records', topic: options.topic });
    // Every reason at 0 from the start, so a rate over them means something before the first drop.
    for (const reason of DROP_REASONS) options.dropped.inc({ reason }, 0);
  }

  record(partnerId: string, describe: () => Described): void {
    if (!this.buckets.take(partnerId)) return this.drop('partner_limit');
    if (this.unsent.size >= this.maxUnsent) return this.drop('unsent_limit');
    let value: Value;
    try {
      value = this.options.stamp(describe());
    } catch (error) {
      return this.failed(error);
    }
    const sent = this.publish(value).then(
      () => this.options.recorded.inc(),
      (error: unknown) => this.failed(error),
    );
    this.unsent.add(sent);
    void sent.finally(() => this.unsent.delete(sent));
  }

  /** Resolves once every record handed over so far is written or given up (at shutdown, before the producer disconnects). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.unsent]);
  }

  private async publish(value: Value): Promise<void> {
    const { producer, codec, topic } = this.options;
    // Refused at once while no leader is connected, rather than held until the delivery timeout.
    if (!producer.reachable(topic)) throw new KafkaUnavailableError(`no leader of ${topic} is connected`);
    const encoded = await codec.encode(topic, value);
    await producer.send({ topic, messages: [{ key: value.partner_id, value: encoded }] });
  }

  private drop(reason: DropReason): void {
    this.options.dropped.inc({ reason });
  }

  private failed(error: unknown): void {
    this.drop('publish_failed');
    this.failuresSinceLog++;
    const now = this.nowMs();
    if (now - this.lastFailureLogMs < FAILURE_LOG_INTERVAL_MS) return;
    this.logger.warn(
      { err: describeError(error), failures: this.failuresSinceLog },
      `${this.options.what} could not be recorded on ${this.options.topic}; they are dropped (the answers were not affected)`,
    );
    this.lastFailureLogMs = now;
    this.failuresSinceLog = 0;
  }
}
