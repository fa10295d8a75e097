import { randomUUID } from 'node:crypto';
import type { AvroCodec } from '@hookstream/kafka';
import { describeError, KafkaUnavailableError } from '@hookstream/errors';
import type { Kafka, Producer } from '@hookstream/kafka';
import { TopicNames } from '@hookstream/kafka';
import { auditEntry, type Actor, type AdminAuditEntry, type AuditedChange } from './audit-entry';

/** One record a change writes: a logical topic, the key, and the value as its schema has it. */
export interface ChangedRecord {
  topic: string;
  key: string;
  value: Record<string, unknown>;
  /** Kafka headers of the record, if it has any. */
  headers?: Record<string, string>;
}

/** How long a change's transaction may stay open: a replica killed inside one holds read_committed readers of its topics at most this long. */
export const TRANSACTION_TIMEOUT_MS = 10_000;

/**
 * Writes a change (a partner's new revision, an operator) and its audit record in one Kafka
 * transaction: readers of either topic read committed, so a change exists exactly when its audit
 * record does. `write` uses one transaction at a time on a transactional id of this process's own
 * (replicas never fence each other); `writeAsSoleWriter` one of the subject's, which fences every
 * other writer of that subject on purpose. A crashed writer's open transaction is aborted by the
 * broker after TRANSACTION_TIMEOUT_MS.
 */
export class AuditedWriter {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly producer: Producer;
  /** Per subject, the sole write under way in this process (writeAsSoleWriter). */
  private readonly subjects = new Map<string, Promise<unknown>>();
  /** Opened at the first change: a command or replica that only reads never starts a transactional producer. */
  private opened: Promise<void> | undefined;

  constructor(
    private readonly kafka: Kafka,
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

  /**
   * A read-modify-write of one subject (a partner) that no other writer can interleave with, on any
   * replica or in the CLI: Kafka's own fencing, not a lock of ours. Each attempt opens a producer
   * whose transactional id is the subject's: opening it fences every earlier holder of that id and
   * completes or aborts the transaction it had open, so once `decide` runs (it must read the
   * subject caught up with the topic, see PartnerDirectory.caughtUp), every earlier change of the
   * subject is readable and no other can commit until this one is done. A writer fenced meanwhile
   * (another opened the same id after it) fails to commit, and `decide` runs again on what the
   * other wrote: two changes of one partner are applied one after the other, never one lost.
   */
  async writeAsSoleWriter(subjectKey: string, decide: () => Promise<DecidedChange>): Promise<AdminAuditEntry> {
    // One change per subject at a time in this process: two here would only fence each other.
    const previous = this.subjects.get(subjectKey) ?? Promise.resolve();
    const run = previous.then(() => this.soleWrite(subjectKey, decide));
    const settled = run.catch(() => undefined);
    this.subjects.set(subjectKey, settled);
    void settled.then(() => this.subjects.get(subjectKey) === settled && this.subjects.delete(subjectKey));
    return run;
  }

  private async soleWrite(subjectKey: string, decide: () => Promise<DecidedChange>): Promise<AdminAuditEntry> {
    for (let attempt = 1; ; attempt++) {
      const producer = this.kafka.producer({
        transactionalId: `${this.topicPrefix}hookstream-admin-${subjectKey}`,
        transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
        deliveryTimeoutMs: TRANSACTION_TIMEOUT_MS,
      });
      try {
        await this.openProducer(producer);
        const { records, actor, change } = await decide();
        return await this.send(producer, records, auditEntry(actor, change));
      } catch (error) {
        // Nothing written (most often: fenced by another writer of the subject): decide again on what is there now.
        if (!(error instanceof AttemptFailed) || attempt >= SOLE_WRITE_ATTEMPTS) throw unwrapFenced(error);
      } finally {
        await producer.disconnect().catch(() => undefined);
      }
    }
  }

  /** Writes `records` and the audit of `change` by `actor` together; throws KafkaUnavailableError when it could not commit (its message says whether it may have). */
  write(records: readonly ChangedRecord[], actor: Actor, change: AuditedChange): Promise<AdminAuditEntry> {
    const run = this.queue.then(() => this.commit(records, auditEntry(actor, change)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.queue;
    await Promise.all(this.subjects.values());
    if (this.opened) await this.producer.disconnect().catch(() => undefined);
  }

  private async open(): Promise<void> {
    try {
      // Initialises the transactional id (fresh per writer, so no other replica is fenced).
      await this.openProducer(this.producer);
    } catch (error) {
      this.opened = undefined;
      throw error;
    }
  }

  private async openProducer(producer: Producer): Promise<void> {
    try {
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw new KafkaUnavailableError(
        `could not open a Kafka transaction for the change (${describeError(error)}): nothing written`,
        error,
      );
    }
  }

  private async commit(records: readonly ChangedRecord[], audit: AdminAuditEntry): Promise<AdminAuditEntry> {
    await (this.opened ??= this.open());
    // One writer's change is not decided again: its refusal is the caller's to retry.
    return this.send(this.producer, records, audit).catch((error: unknown) => {
      throw unwrapFenced(error);
    });
  }

  /** Encodes the change and its audit, and commits them in one transaction of `producer`. */
  private async send(producer: Producer, records: readonly ChangedRecord[], audit: AdminAuditEntry): Promise<AdminAuditEntry> {
    const topic = (logical: string) => `${this.topicPrefix}${logical}`;
    const auditTopic = topic(TopicNames.adminAudit);
    const encoded = await Promise.all(
      records.map(async (r) => ({
        topic: topic(r.topic),
        messages: [{ key: r.key, value: await this.codec.encode(topic(r.topic), r.value), ...(r.headers ? { headers: r.headers } : {}) }],
      })),
    );
    const auditValue = await this.codec.encode(auditTopic, audit);
    let committing = false;
    try {
      const transaction = await producer.transaction();
      try {
        await transaction.sendBatch({
          topicMessages: [...encoded, { topic: auditTopic, messages: [{ key: audit.subject_id, value: auditValue }] }],
        });
        committing = true;
        await transaction.commit();
      } catch (error) {
        await transaction.abort().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      // Until the commit is asked for, nothing can be written; a commit refused as fenced wrote nothing either.
      if (!committing || fencedAtCommit(error)) throw new AttemptFailed(error);
      throw new KafkaUnavailableError(
        `the change may or may not have been written (${describeError(error)}): read it again before retrying`,
        error,
      );
    }
    return audit;
  }
}

/** What a sole write decided to write, and the audit of it. */
export interface DecidedChange {
  records: readonly ChangedRecord[];
  actor: Actor;
  change: AuditedChange;
}

/** Attempts of a sole write before giving up: each lost only to another writer of the subject that committed. */
const SOLE_WRITE_ATTEMPTS = 5;

/** An attempt that certainly wrote nothing (refused before its commit, or fenced at it): deciding again is safe. */
class AttemptFailed extends Error {
  constructor(readonly underlying: unknown) {
    super(`nothing written (${describeError(underlying)})`);
  }
}

function unwrapFenced(error: unknown): unknown {
  return error instanceof AttemptFailed
    ? new KafkaUnavailableError(`the change was not written (${describeError(error.underlying)}); retry`, error.underlying)
    : error;
}

/**
 * Whether a refused commit was refused because another writer of the subject opened its
 * transactional id since (so it wrote nothing): librdkafka's _FENCED (-144), the broker's
 * PRODUCER_FENCED (90) or INVALID_PRODUCER_EPOCH (47), the producer's records purged (_PURGE_QUEUE,
 * -152), or, from Kafka 4's transactions, the EndTxn error librdkafka does not name ("Unknown broker
 * error", -1: seen when the race test's two writers met). Any other failure of a commit may have
 * been carried out unseen, so it is not decided again.
 */
function fencedAtCommit(error: unknown): boolean {
  const { code } = (error ?? {}) as { code?: unknown };
  return [-144, 90, 47, -152, -1].includes(Number(code));
}
