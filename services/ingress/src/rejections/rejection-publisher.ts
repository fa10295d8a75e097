import { randomUUID } from 'node:crypto';
import {
  KafkaUnavailableError,
  describeError,
  type AvroCodec,
  type InboundRejectionValue,
  type Logger,
  type Producer,
} from '@hookstream/shared';
import type { RejectionRecorder, WebhookRejection } from '../domain/webhook-rejection';
import type { IngressMetrics } from '../metrics';
import { PartnerTokenBuckets, type TokenBucketLimits } from './partner-token-buckets';

/**
 * Rejections a partner may have recorded per ingress replica: 20 at once (a burst of bad requests
 * from one broken release shows whole), then one a second (a partner refused all day still gets
 * tens of thousands, enough to see why, while a flood cannot fill the topic or the delivery log).
 */
export const PARTNER_REJECTION_LIMITS: TokenBucketLimits = { burst: 20, perSecond: 1 };

/**
 * Rejections written but not yet acknowledged, on all partners together: while Kafka is slow or away
 * they wait in memory (at most ~2 KB each), so this bounds what that costs; beyond it they are dropped.
 */
export const MAX_UNSENT_REJECTIONS = 1000;

/** A failure to write is logged at most this often (with how many since): a Kafka outage would otherwise log once per refusal. */
const FAILURE_LOG_INTERVAL_MS = 60_000;

/** Why a rejection was not written: over its partner's bucket, over the unsent cap, or the write (or its encoding) failed. */
const DROP_REASONS = ['partner_limit', 'unsent_limit', 'publish_failed'] as const;
type DropReason = (typeof DROP_REASONS)[number];

export interface RejectionPublisherOptions {
  /** A producer of its own: the webhooks' producer never queues behind rejections. */
  producer: Producer;
  codec: AvroCodec;
  /** Real name of inbound-rejections (its schema registered). */
  topic: string;
  instanceId: string;
  logger: Logger;
  metrics: Pick<IngressMetrics, 'rejectionsRecorded' | 'rejectionsDropped'>;
  limits?: TokenBucketLimits;
  maxUnsent?: number;
  /** Monotonic milliseconds, for the buckets and the failure log. */
  nowMs?: () => number;
}

/**
 * Writes rejections to inbound-rejections, keyed by partner id, without ever making an answer wait:
 * `record` only checks the bounds and hands the record to the producer. What is not written is
 * counted by reason in hookstream_ingress_rejections_dropped_total.
 */
export class RejectionPublisher implements RejectionRecorder {
  private readonly buckets: PartnerTokenBuckets;
  private readonly maxUnsent: number;
  private readonly nowMs: () => number;
  private readonly logger: Logger;
  private readonly unsent = new Set<Promise<void>>();
  private failuresSinceLog = 0;
  private lastFailureLogMs = -Infinity;

  constructor(private readonly options: RejectionPublisherOptions) {
    this.nowMs = options.nowMs ?? (() => performance.now());
    this.buckets = new PartnerTokenBuckets(options.limits ?? PARTNER_REJECTION_LIMITS, this.nowMs);
    this.maxUnsent = options.maxUnsent ?? MAX_UNSENT_REJECTIONS;
    this.logger = options.logger.child({ module: 'rejections' });
    // Every reason at 0 from the start, so a rate over them means something before the first drop.
    for (const reason of DROP_REASONS) options.metrics.rejectionsDropped.inc({ reason }, 0);
  }

  record(partnerId: string, describe: () => WebhookRejection): void {
    if (!this.buckets.take(partnerId)) return this.drop('partner_limit');
    if (this.unsent.size >= this.maxUnsent) return this.drop('unsent_limit');
    let value: InboundRejectionValue;
    try {
      value = { rejection_id: randomUUID(), ...describe(), ingress_instance: this.options.instanceId };
    } catch (error) {
      return this.failed(error);
    }
    const sent = this.publish(value).then(
      () => this.options.metrics.rejectionsRecorded.inc(),
      (error: unknown) => this.failed(error),
    );
    this.unsent.add(sent);
    void sent.finally(() => this.unsent.delete(sent));
  }

  /** Resolves once every rejection handed over so far is written or given up (at shutdown, before the producer disconnects). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.unsent]);
  }

  private async publish(value: InboundRejectionValue): Promise<void> {
    const { producer, codec, topic } = this.options;
    // Refused at once while no leader is connected, rather than held until the delivery timeout.
    if (!producer.reachable(topic)) throw new KafkaUnavailableError(`no leader of ${topic} is connected`);
    const encoded = await codec.encode(topic, value);
    await producer.send({ topic, messages: [{ key: value.partner_id, value: encoded }] });
  }

  private drop(reason: DropReason): void {
    this.options.metrics.rejectionsDropped.inc({ reason });
  }

  private failed(error: unknown): void {
    this.drop('publish_failed');
    this.failuresSinceLog++;
    const now = this.nowMs();
    if (now - this.lastFailureLogMs < FAILURE_LOG_INTERVAL_MS) return;
    this.logger.warn(
      { err: describeError(error), failures: this.failuresSinceLog },
      'refused webhooks could not be recorded on inbound-rejections; they are dropped (the answers were not affected)',
    );
    this.lastFailureLogMs = now;
    this.failuresSinceLog = 0;
  }
}
