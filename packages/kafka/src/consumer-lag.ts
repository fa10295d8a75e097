/*
 * Consumer lag of a service's own consumer groups, per topic partition: in records, and in seconds
 * (the age of the oldest record not yet consumed). Measured from the group's committed offsets and
 * the partitions' ends on a timer, not from the consumer's own fetches, so a wedged consumer (or one
 * that left its group) still shows its lag growing. Every replica reports its whole group.
 */
import type { Kafka } from './client';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { describeError } from '@hookstream/errors';
import { PartitionProbe, type FirstRecord } from './partition-probe';

/** One partition's lag. */
export interface PartitionLag {
  records: number;
  seconds: number;
}

/**
 * Where a group member starts reading a partition: its committed offset, or the partition's first
 * offset when it has none (Hookstream's groups read from the beginning) or when retention deleted
 * the records below it.
 */
export function consumerPosition(committed: bigint, low: bigint): bigint {
  return committed < 0n || committed < low ? low : committed;
}

/**
 * A partition's lag, given its last stable offset and the first committed record at or after the
 * group's position (none: caught up). Counting from that record, not from the position, is what
 * makes a caught-up transactional partition 0: a transaction's commit marker takes an offset after
 * its last record, and the group's committed offset stops before it. The records figure counts
 * offsets, so markers within a backlog count too (a transactional topic's backlog reads slightly high).
 */
export function partitionLag(end: bigint, oldest: FirstRecord | undefined, now: number): PartitionLag {
  if (!oldest || oldest.offset >= end) return { records: 0, seconds: 0 };
  return { records: Number(end - oldest.offset), seconds: Math.max(0, (now - oldest.timestamp) / 1000) };
}

/** The gauges lag is reported on (see consumerLagGauges). */
export interface ConsumerLagGauges {
  lagRecords: Gauge<'group' | 'topic' | 'partition'>;
  lagSeconds: Gauge<'group' | 'topic' | 'partition'>;
}

/** Registers `hookstream_consumer_lag_records` and `hookstream_consumer_lag_seconds` (the names every service shares). */
export function consumerLagGauges(registry: Registry): ConsumerLagGauges {
  const labelNames = ['group', 'topic', 'partition'] as const;
  return {
    lagRecords: new Gauge({
      name: 'hookstream_consumer_lag_records',
      help: "Records of a topic partition the consumer group has not consumed yet (last stable offset minus the first committed record at or after the group's committed offset)",
      labelNames,
      registers: [registry],
    }),
    lagSeconds: new Gauge({
      name: 'hookstream_consumer_lag_seconds',
      help: 'Age of the oldest record of a topic partition the consumer group has not consumed yet; 0 when caught up',
      labelNames,
      registers: [registry],
    }),
  };
}

/** A consumer group and the topics it reads (real names, with the prefix). */
export interface GroupTopics {
  groupId: string;
  topics: readonly string[];
}

/** One measurement of one partition. */
export interface PartitionLagReport extends PartitionLag {
  groupId: string;
  topic: string;
  partition: number;
}

export interface ConsumerLagMonitorOptions {
  kafka: Kafka;
  logger: Logger;
  /** The service's own groups and what each reads: every partition of those topics is reported. */
  groups: readonly GroupTopics[];
  /** Where the figures go (consumerLagGauges of the service's registry). */
  gauges: ConsumerLagGauges;
  /** How often lag is measured, in ms (CONSUMER_LAG_INTERVAL_MS). */
  intervalMs: number;
  /** The clock the records' ages are measured with. Default Date.now. */
  now?: () => number;
}

export class ConsumerLagMonitor {
  private readonly probe: PartitionProbe;
  private readonly logger: Logger;
  private readonly now: () => number;
  private admin: ReturnType<Kafka['admin']> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  private stopped = false;

  constructor(private readonly options: ConsumerLagMonitorOptions) {
    this.probe = new PartitionProbe(options.kafka);
    this.logger = options.logger.child({ module: 'consumer-lag' });
    this.now = options.now ?? Date.now;
  }

  /** Takes a first measurement (a failure rejects, so the caller may retry), then one every interval. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.update();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.probe.disconnect();
    await this.admin?.disconnect().catch(() => undefined);
    this.admin = undefined;
  }

  /** Measures every partition of every group's topics. */
  async measure(): Promise<PartitionLagReport[]> {
    const admin = await this.connectedAdmin();
    const reports: PartitionLagReport[] = [];
    for (const { groupId, topics } of this.options.groups) {
      const committed = new Map<string, bigint>();
      for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics: [...topics] })) {
        for (const p of partitions) committed.set(`${topic}/${p.partition}`, BigInt(p.offset));
      }
      for (const topic of topics) {
        const partitions = (await this.probe.bounds(topic)).map(({ partition, low, end }) => ({
          partition,
          from: consumerPosition(committed.get(`${topic}/${partition}`) ?? -1n, low),
          end,
        }));
        // A partition read to its end needs no fetch; those behind (or behind only a marker) are read
        // together, through one assignment (firstRecords).
        const oldest = await this.probe.firstRecords(topic, partitions);
        for (const { partition, end } of partitions)
          reports.push({ groupId, topic, partition, ...partitionLag(end, oldest.get(partition), this.now()) });
      }
    }
    return reports;
  }

  /** Measures and sets the gauges at once (a scrape never sees them half set); a failure keeps the last values. */
  private async update(): Promise<void> {
    try {
      const reports = await this.measure();
      const { lagRecords, lagSeconds } = this.options.gauges;
      lagRecords.reset();
      lagSeconds.reset();
      for (const r of reports) {
        const labels = { group: r.groupId, topic: r.topic, partition: String(r.partition) };
        lagRecords.set(labels, r.records);
        lagSeconds.set(labels, r.seconds);
      }
      if (this.failing) this.logger.info('consumer lag measured again');
      this.failing = false;
    } catch (error) {
      await this.admin?.disconnect().catch(() => undefined);
      this.admin = undefined;
      // Logged once per outage: the readiness checks already say Kafka is away.
      if (!this.failing) this.logger.warn({ err: describeError(error) }, 'consumer lag not measured; the gauges keep their last values');
      this.failing = true;
      throw error;
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.update()
        .catch(() => undefined)
        .finally(() => this.schedule());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async connectedAdmin(): Promise<ReturnType<Kafka['admin']>> {
    if (!this.admin) {
      const admin = this.options.kafka.admin({ retries: 1 });
      await admin.connect();
      this.admin = admin;
    }
    return this.admin;
  }
}
