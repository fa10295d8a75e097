import { EmittedPolicyVersions, TopicReader, type Kafka, type Logger } from '@hookstream/shared';

export interface LatestVersionsOptions {
  kafka: Kafka;
  logger: Logger;
  /** The callback-requests topic. */
  topic: string;
  /** How far back versions matter: the longest a record can wait in the retry tiers (their delays' sum), with a margin. */
  windowMs: number;
}

/**
 * The newest policy version emitted per (partner, endpoint, policy), for latest-wins ordering:
 * an older version still waiting in a retry tier is not sent once a newer one was emitted.
 *
 * Where the state lives: in callback-requests itself. Every sender replica reads that topic whole
 * (without a consumer group, read_committed, from `now - windowMs` at start: see TopicReader), using only the
 * record headers (partner, endpoint, version), never the value. So the view is the same on every
 * replica, needs no topic of its own, survives restarts, and does not depend on which replica
 * owns which partition of which retry tier.
 *
 * The view itself is shared's EmittedPolicyVersions (`hookstream dlq replay` judges superseded
 * dead letters with it too); this class keeps it fed and trimmed.
 *
 * Memory: one entry (~150 bytes) per (endpoint, policy) emitted within the window: 11 h of
 * defaults × 100 policy changes/s × 1 endpoint ≈ 4 million entries ≈ 600 MB; entries older than
 * the window are dropped every minute.
 */
export class LatestVersions {
  private readonly versions = new EmittedPolicyVersions();
  private reader: TopicReader | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private markLoaded: () => void = () => undefined;
  /** Resolves once the window has been read (the sender delivers nothing before). */
  readonly whenReady = new Promise<void>((resolve) => (this.markLoaded = resolve));
  private readonly logger: Logger;

  constructor(private readonly options: LatestVersionsOptions) {
    this.logger = options.logger.child({ module: 'latest-versions' });
  }

  get size(): number {
    return this.versions.size;
  }

  /** Whether a newer version than `version` was emitted for this endpoint and policy. */
  isSuperseded(partnerId: string, endpointId: string, policyNumber: string, version: number): boolean {
    return this.versions.isSuperseded(partnerId, endpointId, policyNumber, version);
  }

  /** Records an emitted version (also used by the consumer for what it reads itself). */
  observe(partnerId: string, endpointId: string, policyNumber: string, version: number, now = Date.now()): void {
    this.versions.observe(partnerId, endpointId, policyNumber, version, now);
  }

  async start(): Promise<void> {
    const { kafka, logger, topic, windowMs } = this.options;
    this.reader = new TopicReader({
      kafka,
      logger,
      topic,
      fromTimestamp: Date.now() - windowMs,
      apply: (messages) => {
        for (const message of messages) this.versions.observeRecord(message.key?.toString('utf8'), message.headers);
        return Promise.resolve();
      },
    });
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    await this.reader.start();
    this.markLoaded();
    this.logger.info({ entries: this.versions.size }, 'latest policy versions loaded');
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.reader?.stop();
  }

  private sweep(now = Date.now()): void {
    this.versions.forgetSeenBefore(now - this.options.windowMs);
  }
}
