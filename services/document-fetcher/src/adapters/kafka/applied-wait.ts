/*
 * The wait a lane does after its fence: until the table of recorded documents holds every record
 * committed on partner-documents before now. Each partition's end is asked of its leader as its
 * high watermark: every record written before now, this lane's included (its previous holder's
 * transactions are all decided by the fence). Not the last stable offset: another lane's
 * transaction open on the same partition holds that below records this lane's previous holder
 * committed after it began, and the wait would end without them. So each partition is first waited
 * on until its last stable offset passes that end (the open transactions below it decided, within
 * their timeout), then the partitions' applied offsets (kept by the feed, entry/kafka/recorded-feed.ts) are
 * polled until they reach it.
 *
 * Why a probe as well: the feed's applied offset is the offset after the last record it applied,
 * but a transaction ends with a commit marker, which no consumer is handed, so a partition whose
 * last write was a commit stays one short of its end for good. Where the applied offset stops
 * short, the probe (@hookstream/kafka's PartitionProbe, as the lag gauges use) reads what lies between: only
 * markers or aborted records, and the partition is caught up (remembered, so the next wait asks
 * again only past that end); a committed record, and the wait goes on until the feed applies it.
 */
import { PartitionProbe, type Kafka } from '@hookstream/kafka';
import { sleep } from '@hookstream/runtime';
import type { RecordedDocuments } from '../store/recorded-documents';

export interface AppliedWaitOptions {
  kafka: Kafka;
  recorded: Pick<RecordedDocuments, 'appliedOffsets'>;
  /** The partner-documents topic. */
  topic: string;
  /** How often the applied offsets are read while waiting. Default 25 ms. */
  pollMs?: number;
}

export class AppliedWait {
  private readonly probe: PartitionProbe;
  /** The same questions asked as a read_uncommitted reader: the partitions' high watermarks. */
  private readonly watermarks: PartitionProbe;
  /** The probe's one consumer serves one question at a time. */
  private probing: Promise<unknown> = Promise.resolve();
  /** Per partition, an offset below which every committed record is known applied. */
  private readonly complete = new Map<number, bigint>();

  constructor(private readonly options: AppliedWaitOptions) {
    this.probe = new PartitionProbe(options.kafka);
    this.watermarks = new PartitionProbe(options.kafka, { readUncommitted: true });
  }

  /** Resolves once every record committed before this call is in the table; rejects after `timeoutMs`. */
  async caughtUp(timeoutMs: number): Promise<void> {
    const { topic, recorded } = this.options;
    const deadline = Date.now() + timeoutMs;
    const bounds = await this.exclusive(() => this.watermarks.bounds(topic));
    const pending = new Map(bounds.map((b) => [b.partition, b]));
    /** Partitions whose last stable offset has passed their end: what a read_committed reader sees there is final. */
    const stable = new Set<number>();
    /** The applied offset each partition was last probed at: probed again only once the feed moved. */
    const probedAt = new Map<number, bigint>();
    for (;;) {
      if (stable.size < pending.size) {
        for (const { partition, end } of await this.exclusive(() => this.probe.bounds(topic))) {
          if (end >= (pending.get(partition)?.end ?? end)) stable.add(partition);
        }
      }
      const applied = await recorded.appliedOffsets();
      for (const [partition, { low, end }] of pending) {
        // Known complete past this end: the topic was made again since; that knowledge is void.
        if ((this.complete.get(partition) ?? -1n) > end) this.complete.delete(partition);
        if (!stable.has(partition)) continue;
        const from = max(applied.get(partition) ?? low, low);
        if (from >= end || (this.complete.get(partition) ?? -1n) >= end) {
          pending.delete(partition);
          continue;
        }
        if (probedAt.get(partition) === from) continue;
        probedAt.set(partition, from);
        const first = await this.exclusive(() => this.probe.firstRecord(topic, partition, from, end));
        if (first === undefined) {
          this.complete.set(partition, max(this.complete.get(partition) ?? end, end));
          pending.delete(partition);
        }
      }
      if (pending.size === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`${topic} was not applied up to its end in time (partitions ${[...pending.keys()].join(', ')})`);
      }
      await sleep(this.options.pollMs ?? 25);
    }
  }

  async stop(): Promise<void> {
    await this.probing.catch(() => undefined);
    await Promise.all([this.probe.disconnect(), this.watermarks.disconnect()]);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.probing.catch(() => undefined).then(work);
    this.probing = result;
    return result;
  }
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
