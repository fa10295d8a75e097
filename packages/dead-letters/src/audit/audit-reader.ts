import { AvroInvalidError } from '@hookstream/errors';
import { TopicNames } from '@hookstream/kafka';
import { AuditIndex, type AuditEntry } from './audit-trail';
import type { DlqSession } from '../dlq-session';
import { scanTopic } from '../read/topic-scan';

/**
 * Reads dlq-replay-audit whole (one partition, a record per replay decision, kept a year) into an
 * AuditIndex, each record decoded with today's schema so older records get the new fields'
 * defaults. Read committed: a replay whose transaction was aborted left no audit and no re-queue.
 */
export async function readAudit(session: DlqSession, fromTimestamp?: number): Promise<AuditIndex> {
  const index = new AuditIndex();
  const topic = session.topicName(TopicNames.dlqReplayAudit);
  await scanTopic({
    kafka: session.kafka,
    logger: session.logger,
    topic,
    ...(fromTimestamp === undefined ? {} : { fromTimestamp }),
    onRecords: async (records) => {
      for (const record of records) {
        if (!record.value) continue;
        try {
          index.add((await session.codec.decode(record.value, topic)) as AuditEntry);
        } catch (error) {
          // Someone else's bytes on the audit topic: not an audit record, so nothing it says counts.
          if (!(error instanceof AvroInvalidError)) throw error;
        }
      }
    },
  });
  return index;
}
