import { randomUUID } from 'node:crypto';
import type { AvroCodec } from '../avro/registry-codec';
import { describeError, KafkaUnavailableError } from '../errors';
import type { Kafka, Producer } from '../kafka/client';
import { TopicNames } from '../kafka/topics';
import { auditEntry, type Actor, type AdminAuditEntry, type AuditedChange } from './audit-entry';

/** One record a change writes: a logical topic, the key, and the value as its schema has it. */
export interface ChangedRecord {
  topic: string;
  key: string;
  value: Record<string, unknown>;
}

/** How long a change's transaction may stay open: a replica killed inside one holds read_committed readers of its topics at most this long. */
const TRANSACTION_TIMEOUT_MS = 10_000;

/**
 * Writes a change (a partner's new revision, an operator) and its audit record in one Kafka
 * transaction: readers of either topic read committed, so a change exists exactly when its audit
 * record does. One transaction at a time per writer; a transactional id of its own per process
 * (replicas never fence each other; a crashed one's open transaction is aborted by the broker
 * after TRANSACTION_TIMEOUT_MS).
 */
export class AuditedWriter {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly producer: Producer;
  /** Opened at the first change: a command or replica that only reads never starts a transactional producer. */
  private opened: Promise<void> | undefined;

  constructor(
    kafka: Kafka,
    private readonly codec: AvroCodec,
    private readonly topicPrefix: string,
  ) {
    this.producer = kafka.producer({
      transactionalId: `${topicPrefix}hookstream-admin-${randomUUID()}`,
      transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
      // A record's delivery may not outlast its transaction (librdkafka refuses the settings otherwise).
      deliveryTimeoutMs: TRANSACTION_TIMEOUT_MS,
    });
  }

  /** Writes `records` and the audit of `change` by `actor` together; throws (having written nothing) when it could not commit. */
  write(records: readonly ChangedRecord[], actor: Actor, change: AuditedChange): Promise<AdminAuditEntry> {
    const run = this.queue.then(() => this.commit(records, auditEntry(actor, change)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.queue;
    if (this.opened) await this.producer.disconnect().catch(() => undefined);
  }

  private async open(): Promise<void> {
    try {
      // Initialises the transactional id (fresh per writer, so no other replica is fenced).
      await this.producer.connect();
    } catch (error) {
      this.opened = undefined;
      await this.producer.disconnect().catch(() => undefined);
      throw new KafkaUnavailableError(
        `could not open a Kafka transaction for the change (${describeError(error)}): nothing written`,
        error,
      );
    }
  }

  private async commit(records: readonly ChangedRecord[], audit: AdminAuditEntry): Promise<AdminAuditEntry> {
    const topic = (logical: string) => `${this.topicPrefix}${logical}`;
    const auditTopic = topic(TopicNames.adminAudit);
    const encoded = await Promise.all(
      records.map(async (r) => ({
        topic: topic(r.topic),
        messages: [{ key: r.key, value: await this.codec.encode(topic(r.topic), r.value) }],
      })),
    );
    const auditValue = await this.codec.encode(auditTopic, audit);
    await (this.opened ??= this.open());
    const transaction = await this.producer.transaction();
    try {
      await transaction.sendBatch({
        topicMessages: [...encoded, { topic: auditTopic, messages: [{ key: audit.subject_id, value: auditValue }] }],
      });
      await transaction.commit();
    } catch (error) {
      await transaction.abort().catch(() => undefined);
      throw new KafkaUnavailableError(`the change was not written (${describeError(error)}); retry`, error);
    }
    return audit;
  }
}
