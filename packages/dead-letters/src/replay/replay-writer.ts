import { describeError, KafkaUnavailableError } from '@hookstream/errors';
import { type Message, type Producer } from '@hookstream/kafka';
import { TopicNames } from '@hookstream/kafka';
import type { AuditEntry } from '../audit/audit-trail';
import type { DlqSession } from '../dlq-session';

/** One decision to write: the audit record, and for a replayed dead letter its re-queued record. */
export interface ReplayWrite {
  audit: { key: string; entry: AuditEntry };
  requeue?: Message;
}

/**
 * Writes replays with a transactional producer: each call is one Kafka transaction holding the
 * re-queued records and their audit records, so a record is re-queued exactly when its audit
 * says "replayed" (read committed), and replaying the same selection twice delivers nothing twice.
 *
 * One transactional id per dead-letter topic (DlqSession.replayTransactionalId): opening the
 * writer fences any earlier run still writing (its next commit fails) and aborts a transaction a
 * crashed run left open. A run opens its writer before it reads the audit, so what it reads is
 * final: no other run can commit a replay of the same dead letter in between.
 */
export class ReplayWriter {
  private constructor(
    private readonly producer: Producer,
    private readonly topics: { requeue: string; audit: string },
  ) {}

  static async open(session: DlqSession): Promise<ReplayWriter> {
    const producer = session.kafka.producer({ transactionalId: session.replayTransactionalId });
    try {
      // Opening the producer initialises the transactional id: fences earlier runs, aborts what they left open.
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw new KafkaUnavailableError(
        `could not start a Kafka transaction for the replay (${describeError(error)}): nothing was replayed`,
        error,
      );
    }
    const topic = (logical: string) => session.topicName(logical);
    return new ReplayWriter(producer, { requeue: topic(session.letters.target), audit: topic(TopicNames.dlqReplayAudit) });
  }

  /** Writes `writes` in one transaction; throws when it was not committed (then none of it was). */
  async write(writes: readonly ReplayWrite[], encodeAudit: (entry: AuditEntry) => Promise<Buffer>): Promise<void> {
    const audits = await Promise.all(writes.map(async (w) => ({ key: w.audit.key, value: await encodeAudit(w.audit.entry) })));
    const requeues = writes.flatMap((w) => (w.requeue ? [w.requeue] : []));
    const transaction = await this.producer.transaction();
    try {
      await transaction.sendBatch({
        topicMessages: [
          ...(requeues.length > 0 ? [{ topic: this.topics.requeue, messages: requeues }] : []),
          { topic: this.topics.audit, messages: audits },
        ],
      });
      await transaction.commit();
    } catch (error) {
      // A fenced producer's writes fail first as purged; its abort then says why.
      const abortError = await transaction.abort().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      throw isFenced(abortError) ? abortError : error;
    }
  }

  async close(): Promise<void> {
    await this.producer.disconnect().catch(() => undefined);
  }
}

/** Whether a transaction failed because a later run took the transactional id over (it fenced this one). */
export function isFenced(error: unknown): boolean {
  if (error === undefined) return false;
  // librdkafka's codes: _FENCED (-144), PRODUCER_FENCED (90), INVALID_PRODUCER_EPOCH (47).
  if ([-144, 90, 47].includes((error as { code?: number }).code ?? 0)) return true;
  return /PRODUCER_FENCED|INVALID_PRODUCER_EPOCH|fenced/i.test(`${(error as { type?: string }).type ?? ''} ${describeError(error)}`);
}
