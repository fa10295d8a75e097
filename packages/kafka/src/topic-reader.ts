import type { Logger } from 'pino';
import { sleep } from '@hookstream/runtime';
import { describeError } from '@hookstream/errors';
import type { Kafka } from './client';
import type { ClientStatistics, KafkaMessage, PartitionConsumer, ReadRecord } from './types';

/**
 * Reads every partition of one topic, without a consumer group, for a replica that keeps the
 * whole topic as its own state (the partner directory, the operator directory).
 *
 * Why not a consumer group: such a replica needs every partition, so a group only adds a session
 * that must be waited out after a broker restart before the replica's state moves again. This
 * reader is assigned every partition (librdkafka's consumer outside any group), keeps its positions
 * in memory, and reads on as soon as the broker answers again. It commits nothing; a restarted
 * replica reads again.
 *
 * It also tells whether its state is current: `isCurrent()` is true only while, by the client's
 * statistics, every partition is being fetched from a leader that answered within `maxAgeMs`:
 * what a replica's readiness should say.
 */
export interface TopicReaderOptions {
  kafka: Kafka;
  logger: Logger;
  topic: string;
  /** Applies the records of one partition, in offset order. A throw retries the same records. */
  apply: (messages: KafkaMessage[], partition: number) => Promise<void>;
  /** Start at the first record at or after this time (epoch ms); default: each partition's beginning. */
  fromTimestamp?: number;
  /** Read only committed records of transactions (aborted ones and markers are never applied). Default true. */
  readCommitted?: boolean;
  /** Longest a fetch waits for new records when the topic is idle. Default 100 ms. */
  maxWaitMs?: number;
}

/** Records taken from the client per call. */
const RECORDS_PER_READ = 500;
/** How often the client reports whether each partition is being fetched (what isCurrent() reads). */
const STATS_INTERVAL_MS = 250;
const MAX_BACKOFF_MS = 1_000;

export class TopicReader {
  private consumer: PartitionConsumer | undefined;
  private partitions: number[] = [];
  /** Per partition, the offset of the next record to apply. */
  private readonly positions = new Map<number, bigint>();
  /** Per partition, where the client reached the partition's end during the current read (applied after its records). */
  private readonly endsReached = new Map<number, bigint>();
  /** When the client last reported every partition fetched from a connected leader (epoch ms). */
  private currentAt = 0;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: TopicReaderOptions) {
    this.logger = options.logger.child({ module: 'topic-reader', topic: options.topic });
  }

  /** Connects and resolves once every partition has been read to its end; then keeps reading until `stop()`. */
  async start(): Promise<void> {
    const { topic } = this.options;
    const consumer = this.options.kafka.partitionConsumer({
      readUncommitted: this.options.readCommitted === false,
      maxWaitMs: this.options.maxWaitMs ?? 100,
      onEnd: (endTopic, partition, offset) => endTopic === topic && this.endsReached.set(partition, offset),
      onStats: (stats) => this.statsReported(stats),
      statsIntervalMs: STATS_INTERVAL_MS,
    });
    this.consumer = consumer;
    await consumer.connect();
    this.partitions = await consumer.partitionsOf(topic);
    const starts =
      this.options.fromTimestamp === undefined
        ? new Map((await consumer.bounds(topic, this.partitions)).map((b) => [b.partition, b.low]))
        : await consumer.offsetsAt(topic, this.partitions, this.options.fromTimestamp);
    for (const partition of this.partitions) this.positions.set(partition, starts.get(partition) ?? 0n);
    consumer.assign(this.partitions.map((partition) => ({ topic, partition, offset: this.position(partition) })));
    this.running = true;
    this.loop = this.readForever();
    await this.caughtUp(Infinity);
    // Every leader just answered, and every partition was read to its end: current until the statistics say otherwise.
    this.currentAt = Math.max(this.currentAt, Date.now());
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.consumer?.disconnect().catch(() => undefined);
  }

  /** The offset of the next record to read from `partition`. */
  position(partition: number): bigint {
    return this.positions.get(partition) ?? 0n;
  }

  get partitionCount(): number {
    return this.partitions.length;
  }

  /** True while every partition's leader has answered its fetches within `maxAgeMs`: the state is current. */
  isCurrent(maxAgeMs: number, now = Date.now()): boolean {
    return this.running && now - this.currentAt <= maxAgeMs;
  }

  /**
   * Resolves once every record written to the topic before this call has been applied (up to each
   * partition's last stable offset, as its leader answers now); rejects after `timeoutMs`.
   */
  async caughtUp(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const ends = await this.consumer!.bounds(this.options.topic, this.partitions);
    while (!ends.every(({ partition, end }) => this.position(partition) >= end)) {
      if (!this.running) throw new Error(`the reader of ${this.options.topic} has stopped`);
      if (Date.now() > deadline) throw new Error(`${this.options.topic} was not read up to its end in time`);
      await sleep(5);
    }
  }

  /**
   * Current means: every partition is being fetched, from a leader whose connection is up and
   * has received within the time asked (an idle fetch is answered every `maxWaitMs`, so a healthy
   * connection is never idle for longer; a stalled one, still open, is).
   */
  private statsReported(stats: ClientStatistics): void {
    const now = Date.now();
    const lastReceived = new Map<number, number>();
    for (const broker of Object.values(stats.brokers)) {
      if (broker.state === 'UP' && broker.rxidle >= 0) lastReceived.set(broker.nodeid, now - broker.rxidle / 1000);
    }
    const partitions = stats.topics?.[this.options.topic]?.partitions ?? {};
    let oldest = now;
    for (const partition of this.partitions) {
      const state = partitions[String(partition)];
      const received = state?.fetch_state === 'active' ? lastReceived.get(state.leader) : undefined;
      if (received === undefined) return;
      oldest = Math.min(oldest, received);
    }
    this.currentAt = oldest;
  }

  private async readForever(): Promise<void> {
    let backoffMs = 50;
    let failing = false;
    while (this.running) {
      try {
        await this.readOnce();
        if (failing) this.logger.info('reading again');
        failing = false;
        backoffMs = 50;
      } catch (error) {
        if (!this.running) return;
        if (!failing) this.logger.warn({ err: describeError(error) }, 'records not applied; reading them again');
        failing = true;
        await sleep(backoffMs);
        backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
      }
    }
  }

  /** One read from the client, applied partition by partition in offset order. */
  private async readOnce(): Promise<void> {
    const records = await this.consumer!.consume(RECORDS_PER_READ);
    const byPartition = new Map<number, KafkaMessage[]>();
    for (const record of records) this.collect(byPartition, record);
    let failure: Error | undefined;
    for (const [partition, messages] of byPartition) {
      try {
        await this.options.apply(messages, partition);
        this.positions.set(partition, BigInt(messages[messages.length - 1]!.offset) + 1n);
      } catch (error) {
        // Read these records again: back to the first not applied.
        this.endsReached.delete(partition);
        await this.consumer!.seek(this.options.topic, partition, this.position(partition));
        failure ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    // Past transaction markers and aborted records at a partition's end: nothing there to apply.
    for (const [partition, end] of this.endsReached) if (end > this.position(partition)) this.positions.set(partition, end);
    this.endsReached.clear();
    if (failure !== undefined) throw failure;
  }

  private collect(byPartition: Map<number, KafkaMessage[]>, { topic, partition, message }: ReadRecord): void {
    // A record before the position is one already applied (read again after a seek back).
    if (topic !== this.options.topic || BigInt(message.offset) < this.position(partition)) return;
    const messages = byPartition.get(partition);
    if (messages) messages.push(message);
    else byPartition.set(partition, [message]);
  }
}
