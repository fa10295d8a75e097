import {
  GroupMember,
  inRecordSpan,
  maxMessageBytesOf,
  type Batch,
  type GroupSession,
  type Kafka,
  type OutputRecord,
} from '@hookstream/kafka';
import { type Logger } from '@hookstream/runtime';
import { type PartnerDirectory } from '@hookstream/partners';
import type { PolicyStatusMetrics } from '../../metrics';
import type { PolicyStatusRecords } from './policy-status-records';

export interface PolicyStatusProcessorOptions {
  kafka: Kafka;
  partners: PartnerDirectory;
  logger: Logger;
  metrics: PolicyStatusMetrics;
  /** Real topic names. */
  topics: { policyStatus: string; callbackRequests: string; deadLetters: string };
  groupId: string;
  session: GroupSession;
  /** The handler of each record, given the most one write may carry (the output topics' smallest max.message.bytes, read at start). */
  recordsFor: (maxWriteBytes: number) => PolicyStatusRecords;
}

/**
 * Consume-transform-produce from policy-status to callback-requests, exactly once: what each
 * fetched batch becomes (its callback requests and dead letters) is written in one Kafka
 * transaction of this member with the consumed offsets (GroupMember, transactional mode). A crash or a
 * failure before the commit aborts all of it and the batch is read again; after the commit,
 * nothing of it is read again. Readers of callback-requests use read_committed.
 *
 * Records that can never be processed (undecodable, unknown or disabled partner, a body the
 * mapping cannot build, a callback request larger than the broker accepts) go to the dead-letter
 * topic with the reason, in the same transaction, and the partition moves on. Anything else
 * (Kafka or the registry unavailable) fails the batch, which is read again.
 *
 * The producer builds record batches no larger than the output topics' `max.message.bytes` (read
 * from the cluster at start), so a backlog's megabyte of events, whose callback requests are
 * larger than they are, never makes a request the broker refuses.
 */
export class PolicyStatusProcessor {
  private member: GroupMember | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: PolicyStatusProcessorOptions) {
    this.logger = options.logger.child({ module: 'policy-status-processor' });
  }

  async start(): Promise<void> {
    await this.options.partners.whenReady();
    const { kafka, metrics, topics, groupId, session } = this.options;
    const maxWriteBytes = await maxMessageBytesOf(kafka, [topics.callbackRequests, topics.deadLetters]);
    const records = this.options.recordsFor(maxWriteBytes);
    this.member = new GroupMember({
      kafka,
      logger: this.logger,
      groupId,
      session,
      topics: [topics.policyStatus],
      // A fetch returns with the first record: an event never waits for others to arrive. Under
      // load the events still share transactions, since those read while one commits go together
      // in the next. Waiting up to 10 ms for 16 KiB instead cost 5 ms at the p50 and p99 at 20/s and
      // saved about 15 % of transactions at 200/s (bench:outbound-e2e, 2026-11-28, docs/benchmarks.md).
      fetch: { minBytes: 1, maxWaitMs: 10 },
      partitionsConsumedConcurrently: 16,
      mode: {
        kind: 'transactional',
        maxBatchBytes: maxWriteBytes,
        transform: (batch, current) => this.transform(records, batch, current),
        onCommitted: (seconds) => metrics.transactionSeconds.observe(seconds),
      },
    });
    await this.member.start();
  }

  /** True while this replica is a member of its group with an assignment (false while it rejoins). */
  get joined(): boolean {
    return this.member?.joined ?? false;
  }

  /** Fetches nothing more; the batches in hand commit or are handed back; leaves the group. */
  async stop(): Promise<void> {
    await this.member?.stop();
  }

  /** The records a batch of policy-status events becomes; stops early once the batch is handed back. */
  private async transform(records: PolicyStatusRecords, batch: Batch, current: () => boolean): Promise<OutputRecord[]> {
    const outputs: OutputRecord[] = [];
    const unknownPartners = new Set<string>();
    for (const message of batch.messages) {
      if (!current()) break;
      // Each event in its own span, continuing the trace its record carries (a core system's traceparent when it sent one):
      // its callback requests carry that span's context, so each event's trace goes on to its partners' callbacks.
      const record = { topic: batch.topic, partition: batch.partition, message };
      outputs.push(...(await inRecordSpan(record, () => records.of(batch.partition, message, unknownPartners), 'policy.fan_out')));
    }
    return outputs;
  }
}
