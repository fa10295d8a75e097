/**
 * retry-backlog's input: records written straight into the retry tiers as the services write
 * them after a failed attempt (connection refused), none due for an hour. Callbacks: the
 * callback-requests value as it came (Avro under callback-requests' schema: the sender carries the
 * value read unchanged into its tiers) with the callback-requests headers and the retry headers;
 * documents: the DocumentFetchRequest under its tier's schema with the retry headers.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  DOCUMENT_RETRY_TIER_COUNT,
  RETRY_TIER_COUNT,
  TopicNames,
  documentRetryTopicName,
  retryHeaders,
  retryTopicName,
  type AvroCodec,
  type IHeaders,
  type Kafka,
} from '@hookstream/kafka';
import { CallbackRequestHeaders } from '@hookstream/contract';
import { callbackBody } from '../send/callback-requests';

/** Records encoded and written per batch. */
const CHUNK = 5_000;
/** How far in the future every record is due: no record comes due while the bench reads. */
const DUE_IN_MS = 60 * 60 * 1000;
/** What a refused connection writes as the last error. */
const REFUSED = 'CONNECTION_REFUSED: connect ECONNREFUSED 127.0.0.1:9';

export interface TierFillTarget {
  kafka: Kafka;
  codec: AvroCodec;
  /** Real name of a topic, from its logical name. */
  topic: (name: string) => string;
  partitions: number;
  partnerId: string;
}

/** One record to write: its tier (1-based), key, value and headers. */
interface TierRecord {
  tier: number;
  key: string;
  value: Buffer;
  headers: IHeaders;
}

/** The retry headers of a record whose first attempt was refused `now` (as both services write them). */
function failedOnce(originTopic: string, partition: number, offset: number, now: number, skips?: number): IHeaders {
  return retryHeaders({
    origin: { topic: originTopic, partition, offset: String(offset) },
    attempts: 1,
    ...(skips === undefined ? {} : { skips }),
    firstFailureAt: null,
    dueAt: now + DUE_IN_MS,
    lastError: REFUSED,
    attempt: { httpStatus: null, errorClass: 'CONNECTION_REFUSED' },
    now,
  });
}

/** `count` callbacks in the callback-sender's tiers, spread evenly over every tier's partitions. Returns the seconds it took. */
export function fillCallbackTiers(target: TierFillTarget, count: number): Promise<number> {
  const requests = target.topic(TopicNames.callbackRequests);
  const bodies = Array.from({ length: 16 }, (_, i) => callbackBody(i));
  return fill(target, count, RETRY_TIER_COUNT, retryTopicName, async (i, partition, now) => {
    const policyNumber = `POL-${String(i).padStart(9, '0')}`;
    const value = await target.codec.encode(requests, {
      delivery_id: randomUUID(),
      event_id: randomUUID(),
      partner_id: target.partnerId,
      endpoint_id: 'ep-1',
      policy_number: policyNumber,
      policy_version: 1,
      policy_status: 'POLICY_ACTIVE',
      body: bodies[i % bodies.length]!,
      created_at: now,
      trigger: null,
    });
    const headers = {
      [CallbackRequestHeaders.partnerId]: target.partnerId,
      [CallbackRequestHeaders.endpointId]: 'ep-1',
      [CallbackRequestHeaders.policyVersion]: '1',
      // The sender writes the skips since the last attempt (none) on every callback's tier record.
      ...failedOnce(requests, partition, i, now, 0),
    };
    return { tier: 1 + (i % RETRY_TIER_COUNT), key: policyNumber, value, headers };
  });
}

/** `count` document retrievals in the document-fetcher's tiers, spread evenly over every tier's partitions. Returns the seconds it took. */
export function fillDocumentTiers(target: TierFillTarget, count: number): Promise<number> {
  const events = target.topic(TopicNames.partnerEvents);
  return fill(target, count, DOCUMENT_RETRY_TIER_COUNT, documentRetryTopicName, async (i, partition, now) => {
    const tier = 1 + (i % DOCUMENT_RETRY_TIER_COUNT);
    const documentId = randomUUID();
    const value = await target.codec.encode(target.topic(documentRetryTopicName(tier)), {
      document_id: documentId,
      document_index: 0,
      partner_id: target.partnerId,
      request_id: randomUUID(),
      transaction_number: `TX-${i}`,
      transaction_type: 'CLAIM',
      document_type: 'CLAIM_DOCUMENTS',
      source_url: `http://127.0.0.1:9/documents/${i}.pdf`,
      filename: null,
      received_at: now,
    });
    return { tier, key: documentId, value, headers: failedOnce(events, partition, i, now) };
  });
}

async function fill(
  target: TierFillTarget,
  count: number,
  tiers: number,
  tierName: (tier: number) => string,
  recordOf: (i: number, partition: number, now: number) => Promise<TierRecord>,
): Promise<number> {
  const producer = target.kafka.producer({ lingerMs: 20 });
  await producer.connect();
  const started = performance.now();
  try {
    for (let from = 0; from < count; from += CHUNK) {
      const now = Date.now();
      // Tier by i % tiers, partition by the quotient: every tier's partitions get as many.
      const records = await Promise.all(
        Array.from({ length: Math.min(CHUNK, count - from) }, (_, j) => {
          const i = from + j;
          return recordOf(i, Math.floor(i / tiers) % target.partitions, now);
        }),
      );
      const byTier = new Map<number, Array<{ key: string; value: Buffer; headers: IHeaders; partition: number }>>();
      records.forEach(({ tier, key, value, headers }, j) => {
        const partition = Math.floor((from + j) / tiers) % target.partitions;
        const messages = byTier.get(tier) ?? [];
        messages.push({ key, value, headers, partition });
        byTier.set(tier, messages);
      });
      await producer.sendBatch({
        topicMessages: [...byTier].map(([tier, messages]) => ({ topic: target.topic(tierName(tier)), messages })),
      });
    }
  } finally {
    await producer.disconnect();
  }
  return (performance.now() - started) / 1000;
}
