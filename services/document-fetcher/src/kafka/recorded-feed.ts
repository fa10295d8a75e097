/*
 * Feeds the table of recorded documents (store/recorded-documents.ts) from partner-documents
 * itself: a consumer group of the fetcher's own (`<group>-recorded`, its replicas sharing the
 * partitions), read_committed so an aborted transaction's records never count, each batch's
 * identities and its partition's applied offset written in one PostgreSQL transaction. Offsets are
 * committed to Kafka (automatically) only after that transaction, so a crash or a rebalance reads
 * a batch again, which writes the same rows; the applied offset never goes back. Also deletes the
 * identities older than the window, in bounded batches, every minute.
 */
import {
  DocumentHeaders,
  describeError,
  GroupMember,
  type Batch,
  type GroupSession,
  type Kafka,
  type KafkaMessage,
  type Logger,
} from '@hookstream/shared';
import type { RecordIdentity, RecordedDocuments } from '../store/recorded-documents';

export interface RecordedFeedOptions {
  kafka: Kafka;
  logger: Logger;
  recorded: RecordedDocuments;
  /** The partner-documents topic. */
  topic: string;
  /** The feed's consumer group (TOPIC_PREFIX included). */
  groupId: string;
  session: GroupSession;
  /** How long identities matter: longer than any record can wait in the retry tiers, with a margin. */
  windowMs: number;
  /** How often old identities are deleted. Default 60000. */
  sweepIntervalMs?: number;
}

/** A partner-documents record's identity, from its key and replay header (a record without a key has none). */
export function identityOf(message: KafkaMessage): RecordIdentity | undefined {
  const documentId = message.key?.toString('utf8');
  if (!documentId) return undefined;
  const header = message.headers?.[DocumentHeaders.replayCount];
  const replay = Number((Array.isArray(header) ? header[0] : header)?.toString() ?? 0);
  return { documentId, replay: Number.isSafeInteger(replay) && replay >= 0 ? replay : 0 };
}

export class RecordedFeed {
  private member: GroupMember | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: RecordedFeedOptions) {
    this.logger = options.logger.child({ module: 'recorded-feed' });
  }

  /** Joins the group (in the background) and starts the sweeps; nothing is read up front. */
  async start(): Promise<void> {
    const { kafka, topic, groupId, session } = this.options;
    // From the beginning (as every GroupMember): a new group (the first start) reads what retention left; records older than the window are skipped.
    this.member = new GroupMember({
      ...{ kafka, logger: this.logger, groupId, session, topics: [topic] },
      fetch: { maxWaitMs: 50 },
      partitionsConsumedConcurrently: 4,
      mode: { kind: 'batches', handle: (batch) => this.apply(batch) },
    });
    await this.member.start();
    this.sweeper = setInterval(() => void this.sweep(), this.options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
  }

  /** True while this replica holds an assignment in the feed's group. */
  get joined(): boolean {
    return this.member?.joined ?? false;
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.member?.stop();
    this.member = undefined;
  }

  /** Deletes identities older than the window; a failure is logged (the next sweep deletes them). */
  async sweep(now = Date.now()): Promise<number> {
    try {
      const deleted = await this.options.recorded.sweep(now - this.options.windowMs);
      if (deleted > 0) this.logger.info({ deleted }, 'recorded documents older than the window deleted');
      return deleted;
    } catch (error) {
      this.logger.warn({ err: describeError(error) }, 'old recorded documents not deleted; trying again later');
      return 0;
    }
  }

  /** One batch: its identities and the partition's applied offset, in one transaction; a throw reads it again. */
  private async apply(batch: Batch): Promise<void> {
    const last = batch.messages.at(-1);
    if (!last) return;
    const oldest = Date.now() - this.options.windowMs;
    const identities: Array<RecordIdentity & { seenAt: number }> = [];
    for (const message of batch.messages) {
      const identity = identityOf(message);
      const seenAt = Number(message.timestamp);
      if (identity && seenAt >= oldest) identities.push({ ...identity, seenAt });
    }
    await this.options.recorded.apply(batch.partition, identities, BigInt(last.offset) + 1n);
  }
}
