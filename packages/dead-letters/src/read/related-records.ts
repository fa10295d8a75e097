import { EmittedPolicyVersions } from '@hookstream/contract';
import { TopicNames } from '@hookstream/kafka';
import { type Partner } from '@hookstream/partners';
import { PartnerDirectory } from '@hookstream/partners';
import type { LetterDetails } from './dead-letter-topic';
import type { DlqSession } from '../dlq-session';
import { scanTopic } from './topic-scan';

/**
 * The newest version emitted per (partner, endpoint, policy) on callback-requests since
 * `fromTimestamp`, read from the record keys and headers only, as the sender's latest-wins view is
 * (@hookstream/contract's EmittedPolicyVersions).
 */
export async function readEmittedVersions(session: DlqSession, fromTimestamp: number): Promise<EmittedPolicyVersions> {
  const versions = new EmittedPolicyVersions();
  await scanTopic({
    kafka: session.kafka,
    logger: session.logger,
    topic: session.topicName(TopicNames.callbackRequests),
    fromTimestamp,
    onRecords: (records) => {
      for (const record of records) versions.observeRecord(record.key?.toString('utf8'), record.headers);
    },
  });
  return versions;
}

/** One callback-outcomes record (schemas/callback-outcome.avsc). */
export interface CallbackOutcome {
  delivery_id: string;
  event_id: string;
  partner_id: string;
  endpoint_id: string;
  policy_number: string;
  policy_version: number;
  attempt: number;
  outcome: string;
  http_status: number | null;
  error_class: string | null;
  latency_ms: number | null;
  recorded_at: number;
  /** The retry tier the request was read from (0: the first send); null in records written before the field existed. */
  tier: number | null;
  /** The start of the partner's answer to this send (schemas/callback-outcome.avsc); null without one, and in records written before the field existed. */
  response_excerpt: string | null;
  /**
   * The headers the sender set on this send, as a JSON object, each secret-bearing value replaced
   * by "[redacted]" (schemas/callback-outcome.avsc); null for outcomes that are not a send, and in
   * records written before the field existed.
   */
  request_headers_json: string | null;
  /** The request's trigger (RETRY_NOW, TEST); null for a policy status change's, and absent or null in records written before the field existed. */
  trigger?: string | null;
  /** When a FAILED_ATTEMPT's or SKIPPED_CIRCUIT_OPEN's retry is due (epoch ms); null otherwise, absent or null in older records. */
  next_attempt_at?: number | null;
}

/**
 * Every attempt outcome on callback-outcomes for one delivery id (or every delivery of one event
 * id) since `fromTimestamp`, oldest first. Outcomes are keyed by policy number: only records with
 * that key are decoded.
 */
export async function readOutcomes(
  session: DlqSession,
  of: NonNullable<LetterDetails['outcomesOf']>,
  fromTimestamp: number,
): Promise<CallbackOutcome[]> {
  const topic = session.topicName(TopicNames.callbackOutcomes);
  const found: CallbackOutcome[] = [];
  await scanTopic({
    kafka: session.kafka,
    logger: session.logger,
    topic,
    fromTimestamp,
    onRecords: async (records) => {
      for (const record of records) {
        if (record.key?.toString('utf8') !== of.policyNumber || !record.value) continue;
        const outcome = (await session.codec.decode(record.value, topic)) as CallbackOutcome;
        if (outcome[of.field] === of.id) found.push(outcome);
      }
    },
  });
  return found.sort((a, b) => a.recorded_at - b.recorded_at || a.attempt - b.attempt);
}

/** Every partner as partner-config has it now (its compacted topic read whole, then closed). */
export async function readPartners(session: DlqSession): Promise<Map<string, Partner>> {
  const directory = new PartnerDirectory({
    kafka: session.kafka,
    codec: session.codec,
    topic: session.topicName(TopicNames.partnerConfig),
    logger: session.logger,
  });
  try {
    await directory.start();
    return new Map(directory.list().map((partner) => [partner.partner_id, partner]));
  } finally {
    await directory.stop();
  }
}
