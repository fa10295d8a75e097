/*
 * The delivery log's projection: a member of its own consumer group, reading read_committed every
 * topic that says something about a webhook, a delivery, a document, a dead letter, a replay or a
 * partner, and writing each fetched batch's facts in one database transaction. Offsets are
 * committed (automatically, every few seconds) only for batches whose transaction committed, so a
 * crash repeats at most the batches since the last commit, which fact-writer.ts writes again to
 * the same rows: no record is lost and none is counted twice.
 */
import { GroupMember, type AvroCodec, type Batch, type GroupSession, type Kafka } from '@hookstream/kafka';
import { inSpan, type Logger } from '@hookstream/runtime';
import type { DeliveryLogDb } from '../../adapters/store/tables';
import type { DeliveryLogMetrics } from '../../metrics';
import { writeFacts } from '../../adapters/store/projection/fact-writer';
import { factOf, type Fact } from './facts';
import { retryPause } from './retry-pause';
import { TopicGenerations } from '../../adapters/store/projection/topic-generations';

export interface ProjectionOptions {
  kafka: Kafka;
  codec: AvroCodec;
  db: DeliveryLogDb;
  logger: Logger;
  metrics: DeliveryLogMetrics;
  groupId: string;
  session: GroupSession;
  /** Real topic name → logical name, of every topic read. */
  topics: Map<string, string>;
  /** Batches written side by side. */
  concurrency: number;
  /** How often the topics' ids are compared while running (a topic created again: topic-generations.ts). Default 30000. */
  topicCheckIntervalMs?: number;
}

/** How long a batch that could not be written waits before it is read and tried again. */
const RETRY_PAUSE_MS = 1000;

export class DeliveryLogProjection {
  private member: GroupMember | undefined;
  private readonly logger: Logger;
  private readonly stopping = new AbortController();
  private readonly generations: TopicGenerations;
  private topicCheck: NodeJS.Timeout | undefined;

  constructor(private readonly options: ProjectionOptions) {
    this.logger = options.logger.child({ module: 'projection' });
    this.generations = new TopicGenerations({ ...options, logger: this.logger });
  }

  async start(): Promise<void> {
    const { kafka, groupId, session, topics, concurrency } = this.options;
    // Before the first record: a topic created again since the log last ran must not meet its old rows.
    await this.generations.check();
    this.member = new GroupMember({
      ...{ kafka, logger: this.logger, groupId, session, topics: [...topics.keys()] },
      // Under load a fetch brings many records, written in one transaction; idle, a record waits at most 100 ms more.
      fetch: { minBytes: 64 * 1024, maxWaitMs: 100 },
      partitionsConsumedConcurrently: concurrency,
      mode: { kind: 'batches', handle: (batch) => this.project(batch) },
    });
    await this.member.start();
    this.topicCheck = setInterval(() => void this.checkTopics(), this.options.topicCheckIntervalMs ?? 30_000);
  }

  /** A topic created again while running: its partitions are read again from their new start (topic-generations.ts). */
  private async checkTopics(): Promise<void> {
    try {
      const changed = new Set(await this.generations.check());
      const member = this.member;
      if (changed.size === 0 || !member) return;
      for (const { topic, partition } of member.assignment()) {
        // Offset 0, or the first one retention left (out of range: the consumer starts from the earliest).
        if (changed.has(topic)) member.seek({ topic, partition, offset: '0' });
      }
    } catch (error) {
      this.logger.warn({ err: error }, "could not compare the topics' ids; trying again later");
    }
  }

  /** True while this replica holds an assignment in its group. */
  get joined(): boolean {
    return this.member?.joined ?? false;
  }

  async stop(): Promise<void> {
    clearInterval(this.topicCheck);
    this.stopping.abort();
    await this.member?.stop();
  }

  /** One batch: its records' facts, written in one transaction; a failure reads the batch again after a pause. */
  private async project(batch: Batch): Promise<void> {
    const topic = this.options.topics.get(batch.topic) ?? batch.topic;
    const first = batch.messages[0];
    const last = batch.messages.at(-1);
    const generation = first && last ? await this.generations.generationOf(batch.topic, batch.partition, first.offset, last.offset) : 0;
    const facts: Fact[] = [];
    for (const message of batch.messages) {
      const fact = await this.factOfMessage(batch.topic, topic, generation, batch.partition, message);
      if (fact) facts.push(fact);
    }
    const timer = this.options.metrics.batchSeconds.startTimer();
    try {
      const attributes = { 'messaging.destination.name': batch.topic, 'hookstream.facts': facts.length };
      await inSpan('delivery_log.project', { attributes }, () => writeFacts(this.options.db, facts));
    } catch (error) {
      this.options.metrics.batchFailures.inc();
      this.logger.warn({ err: error, topic, partition: batch.partition }, 'could not write a batch to the delivery log; reading it again');
      await retryPause(RETRY_PAUSE_MS, this.stopping.signal);
      throw error;
    }
    timer();
    this.options.metrics.records.inc({ topic }, batch.messages.length);
  }

  private async factOfMessage(
    realTopic: string,
    topic: string,
    generation: number,
    partition: number,
    message: Batch['messages'][number],
  ): Promise<Fact | null> {
    try {
      const value = message.value === null ? null : await this.options.codec.decode(message.value, realTopic);
      return factOf({
        topic,
        generation,
        partition,
        offset: message.offset,
        timestamp: Number(message.timestamp),
        key: message.key?.toString() ?? null,
        headers: message.headers,
        value,
      });
    } catch (error) {
      // A record no schema reads (or a value its topic should not carry) is left out, counted and logged; the log goes on.
      this.options.metrics.skipped.inc({ topic });
      this.logger.warn({ err: error, topic, partition, offset: message.offset }, 'a record the delivery log cannot read was skipped');
      return null;
    }
  }
}
