/*
 * Feeds the table of recorded documents (adapters/store/recorded-documents.ts) from partner-documents
 * itself: a consumer group of the fetcher's own (`<group>-recorded`, its replicas sharing the
 * partitions), read_committed so an aborted transaction's records never count, each batch's
 * identities and its partition's applied offset written in one PostgreSQL transaction. Where a
 * partition is read from is that applied offset, restored on assignment (the group's committed
 * offsets serve only the lag gauges), so the table and its position cannot disagree: a crash or a
 * rebalance reads a batch again, which writes the same rows. Also deletes the identities older
 * than the window, in bounded batches, every minute.
 */
import { DocumentHeaders } from '@hookstream/contract';
import { describeError } from '@hookstream/errors';
import {
  GroupMember,
  PartitionProbe,
  type PartitionBounds,
  type Batch,
  type GroupSession,
  type Kafka,
  type KafkaMessage,
} from '@hookstream/kafka';
import { type Logger } from '@hookstream/runtime';
import type { RecordIdentity, RecordedDocuments } from '../../adapters/store/recorded-documents';

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
  /** Each partition's bounds, as a read_uncommitted reader sees them (the high watermark). */
  private readonly probe: PartitionProbe;
  /** The applied offsets and the partitions' bounds, looked up once per assignment (cleared when partitions are dropped). */
  private positions: Promise<{ applied: Map<number, bigint>; bounds: PartitionBounds[] }> | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: RecordedFeedOptions) {
    this.logger = options.logger.child({ module: 'recorded-feed' });
    this.probe = new PartitionProbe(options.kafka, { readUncommitted: true });
  }

  /** Joins the group (in the background) and starts the sweeps; nothing is read up front. */
  async start(): Promise<void> {
    const { kafka, topic, groupId, session } = this.options;
    // From the beginning (as every GroupMember): a new group (the first start) reads what retention left; records older than the window are skipped.
    this.member = new GroupMember({
      ...{ kafka, logger: this.logger, groupId, session, topics: [topic] },
      fetch: { maxWaitMs: 50 },
      partitionsConsumedConcurrently: 4,
      partitionState: { restore: (partition) => this.resume(partition.partition), drop: () => (this.positions = undefined) },
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
    await this.probe.disconnect();
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

  /**
   * Where an assigned partition is read from: its applied offset in the store, not the group's
   * committed offset (committed only for the lag gauges), so the position is in one place. A store
   * restored from an older backup then reads again what it lacks (a partition it has no applied
   * offset for, from the partition's start); an applied offset past the
   * partition's end (the topic deleted and made again) starts the partition over, since the wait
   * after a fence would otherwise take it for caught up.
   */
  private async resume(partition: number): Promise<void> {
    const { recorded, topic } = this.options;
    // One lookup serves every partition of an assignment (their restores start together).
    this.positions ??= this.lookUpPositions();
    const positions = this.positions;
    const { applied, bounds } = await positions.catch((error: unknown) => {
      if (this.positions === positions) this.positions = undefined;
      throw error;
    });
    const from = applied.get(partition);
    const partitionBounds = bounds.find((b) => b.partition === partition);
    if (from === undefined) {
      // Nothing applied yet (a new store, or one restored from before the feed read this partition):
      // from the partition's start, not the group's committed offset, or what lies before that
      // offset would never be recorded and a record of it could be written again. Offset 0 is taken
      // to the first one retention kept by the reset (earliest), as below.
      this.member!.seek({ topic, partition, offset: String(partitionBounds?.low ?? 0n) });
      return;
    }
    if (!partitionBounds) return;
    if (from > partitionBounds.end) {
      this.logger.warn(
        { partition, applied: String(from), end: String(partitionBounds.end) },
        'partner-documents is behind the applied offset (the topic was made again): the partition is read from its start',
      );
      await recorded.resetApplied(partition, partitionBounds.low);
      this.member!.seek({ topic, partition, offset: String(partitionBounds.low) });
      return;
    }
    // Below the first offset retention kept: librdkafka's reset (earliest) takes it there.
    this.member!.seek({ topic, partition, offset: String(from) });
  }

  private async lookUpPositions(): Promise<{ applied: Map<number, bigint>; bounds: PartitionBounds[] }> {
    const [applied, bounds] = await Promise.all([this.options.recorded.appliedOffsets(), this.probe.bounds(this.options.topic)]);
    return { applied, bounds };
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
