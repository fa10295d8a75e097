/*
 * Which documents partner-documents already holds a record of: read from the topic itself (keys
 * and headers only, never a value), so it survives restarts and is the same on every replica.
 */
import { DocumentHeaders, TopicReader, type KafkaMessage, type Kafka, type Logger } from '@hookstream/shared';

export interface RecordedDocumentsOptions {
  kafka: Kafka;
  logger: Logger;
  /** The partner-documents topic. */
  topic: string;
  /** How far back records matter: longer than any record can wait in the retry tiers, with a margin. */
  windowMs: number;
}

/** The identity of one record: a document, and which replay of its dead letter (0: the first record). */
export function recordIdentity(documentId: string, replay: number): string {
  return `${documentId}#${replay}`;
}

/** A partner-documents record's identity, from its key and replay header. */
function identityOf(message: KafkaMessage): string | undefined {
  const documentId = message.key?.toString('utf8');
  if (!documentId) return undefined;
  const header = message.headers?.[DocumentHeaders.replayCount];
  const replay = Number((Array.isArray(header) ? header[0] : header)?.toString() ?? 0);
  return recordIdentity(documentId, Number.isSafeInteger(replay) && replay >= 0 ? replay : 0);
}

/**
 * The set of record identities on partner-documents within the window, read read_committed (an
 * aborted transaction's records never count), plus those this process just committed.
 *
 * Memory: ~150 bytes per document recorded within the window (24 h at 50 documents/s ≈ 650 MB);
 * entries older than the window are dropped every minute.
 */
export class RecordedDocuments {
  private readonly seen = new Map<string, number>();
  private reader: TopicReader | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: RecordedDocumentsOptions) {}

  has(documentId: string, replay: number): boolean {
    return this.seen.has(recordIdentity(documentId, replay));
  }

  /** Notes a record this process committed (the reader sees it again later; no harm). */
  add(documentId: string, replay: number, now = Date.now()): void {
    this.seen.set(recordIdentity(documentId, replay), now);
  }

  get size(): number {
    return this.seen.size;
  }

  /** Whether the topic has been read recently enough to trust (readiness). */
  isCurrent(maxAgeMs: number): boolean {
    return this.reader?.isCurrent(maxAgeMs) ?? false;
  }

  /** Resolves once every record committed before this call has been applied. */
  caughtUp(timeoutMs: number): Promise<void> {
    if (!this.reader) return Promise.reject(new Error('partner-documents is not being read'));
    return this.reader.caughtUp(timeoutMs);
  }

  /** Reads the window and resolves once at its end; keeps reading until stop(). */
  async start(): Promise<void> {
    const { kafka, logger, topic, windowMs } = this.options;
    this.reader = new TopicReader({
      kafka,
      logger,
      topic,
      fromTimestamp: Date.now() - windowMs,
      maxWaitMs: 50,
      apply: (messages) => {
        for (const message of messages) {
          const identity = identityOf(message);
          if (identity) this.seen.set(identity, Number(message.timestamp));
        }
        return Promise.resolve();
      },
    });
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    await this.reader.start();
    logger.info({ documents: this.seen.size }, 'recorded documents loaded');
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.reader?.stop();
  }

  private sweep(now = Date.now()): void {
    const oldest = now - this.options.windowMs;
    for (const [identity, at] of this.seen) if (at < oldest) this.seen.delete(identity);
  }
}
