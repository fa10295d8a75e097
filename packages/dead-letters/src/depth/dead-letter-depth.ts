/*
 * The DLQ depth gauges of one dead-letter topic: its records and the replays audited on
 * dlq-replay-audit, each read by a TopicReader (read_committed: an aborted replay's audit does not
 * count), and the topic's first offsets refreshed on a timer so that records retention deleted
 * stop counting.
 */
import type { Kafka } from '@hookstream/kafka';
import type { KafkaMessage } from '@hookstream/kafka';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { AvroCodec } from '@hookstream/kafka';
import { AvroInvalidError, describeError } from '@hookstream/errors';
import { PartitionProbe } from '@hookstream/kafka';
import { TopicReader } from '@hookstream/kafka';
import { DeadLetterTally, replayAuditFacts } from './dead-letter-tally';

/** The gauges DLQ depth is reported on (see deadLetterGauges). */
export interface DeadLetterGauges {
  records: Gauge<'topic'>;
  unreplayed: Gauge<'topic'>;
}

/** Registers `hookstream_dlq_records` and `hookstream_dlq_unreplayed_records` (the names every service shares). */
export function deadLetterGauges(registry: Registry): DeadLetterGauges {
  return {
    records: new Gauge({
      name: 'hookstream_dlq_records',
      help: 'Dead letters held in the dead-letter topic (records, not offsets: transaction markers do not count)',
      labelNames: ['topic'] as const,
      registers: [registry],
    }),
    unreplayed: new Gauge({
      name: 'hookstream_dlq_unreplayed_records',
      help: 'Dead letters held that no replay has settled: none re-queued them, or found them superseded (dlq-replay-audit)',
      labelNames: ['topic'] as const,
      registers: [registry],
    }),
  };
}

export interface DeadLetterDepthOptions {
  kafka: Kafka;
  codec: AvroCodec;
  logger: Logger;
  /** The dead-letter topic: its real name, and its logical name (what dlq-replay-audit's source_topic may say too). */
  deadLetters: { topic: string; logical: string };
  /** dlq-replay-audit's real name. */
  auditTopic: string;
  gauges: DeadLetterGauges;
  /** How often the topic's first offsets are refreshed, in ms. */
  refreshMs: number;
}

/** Both topics are idle nearly always: a long fetch wait costs the gauges nothing noticeable. */
const READER_WAIT_MS = 1000;

export class DeadLetterDepth {
  private readonly tally = new DeadLetterTally();
  private readonly logger: Logger;
  private readonly sourceNames: ReadonlySet<string>;
  private readonly probe: PartitionProbe;
  private readers: TopicReader[] = [];
  private timer: NodeJS.Timeout | undefined;
  private current = false;

  constructor(private readonly options: DeadLetterDepthOptions) {
    this.logger = options.logger.child({ module: 'dead-letter-depth', topic: options.deadLetters.topic });
    this.sourceNames = new Set([options.deadLetters.topic, options.deadLetters.logical]);
    this.probe = new PartitionProbe(options.kafka);
  }

  /** Reads both topics to their ends, then publishes the gauges; they follow every record from then on. */
  async start(): Promise<void> {
    const { kafka, logger, deadLetters, auditTopic } = this.options;
    this.readers = [
      new TopicReader({ kafka, logger, topic: deadLetters.topic, maxWaitMs: READER_WAIT_MS, apply: (m, p) => this.deadLettersRead(m, p) }),
      new TopicReader({ kafka, logger, topic: auditTopic, maxWaitMs: READER_WAIT_MS, apply: (m) => this.auditsRead(m) }),
    ];
    await Promise.all(this.readers.map((r) => r.start()));
    await this.dropDeleted();
    this.current = true;
    this.publish();
    this.schedule();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.current = false;
    await Promise.all(this.readers.map((r) => r.stop()));
    await this.probe.disconnect();
  }

  private deadLettersRead(messages: KafkaMessage[], partition: number): Promise<void> {
    for (const message of messages) this.tally.add(partition, Number(message.offset));
    this.publish();
    return Promise.resolve();
  }

  private async auditsRead(messages: KafkaMessage[]): Promise<void> {
    for (const message of messages) {
      try {
        if (!message.value) throw new AvroInvalidError('the record has no value');
        // The writer's schema, whichever version: replayAuditFacts supplies the fields an older one lacks.
        const facts = replayAuditFacts((await this.options.codec.decode(message.value)) as Record<string, unknown>);
        if (this.sourceNames.has(facts.sourceTopic)) this.tally.audit(facts);
      } catch (error) {
        if (!(error instanceof AvroInvalidError)) throw error; // the registry is away: the reader tries these records again
        this.logger.warn({ offset: message.offset, err: describeError(error) }, 'undecodable dlq-replay-audit record: not counted');
      }
    }
    this.publish();
  }

  /** Forgets the dead letters retention deleted. */
  private async dropDeleted(): Promise<void> {
    for (const { partition, low } of await this.probe.bounds(this.options.deadLetters.topic)) {
      this.tally.dropBelow(partition, Number(low));
    }
  }

  private publish(): void {
    if (!this.current) return; // not before both topics are read to their ends: a count still climbing would look like growth
    const labels = { topic: this.options.deadLetters.topic };
    this.options.gauges.records.set(labels, this.tally.depth);
    this.options.gauges.unreplayed.set(labels, this.tally.unreplayed);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.dropDeleted()
        .then(() => this.publish())
        .catch((error: unknown) => this.logger.debug({ err: describeError(error) }, 'first offsets not refreshed; next time'))
        .finally(() => {
          if (this.current) this.schedule();
        });
    }, this.options.refreshMs);
    this.timer.unref();
  }
}
