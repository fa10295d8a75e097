/*
 * What the projection learns from one record of each topic it reads: a fact in the delivery log's
 * terms, carrying what identifies it in the topics (a delivery id, a document id, the record's
 * partition and offset). fact-writer.ts writes facts; nothing here touches the database.
 */
import { DeadLetterIdentityHeaders, TopicNames, headerText, sampledTraceIdOf, type IHeaders } from '@hookstream/kafka';
import { partnerFromRecord, type AdminAuditEntry, type Partner } from '@hookstream/partners';
import { type AuditEntry, type CallbackOutcome, failureOf } from '@hookstream/dead-letters';
import {
  CallbackRequestHeaders,
  type CallbackRequestValue,
  type InboundRejectionValue,
  type InboundReplayValue,
  type PartnerDocumentValue,
  type PartnerEventValue,
  documentIdOf,
  webhookIdOf,
} from '@hookstream/contract';
import { isStorableTime } from '../../adapters/store/storable-values';

/** A record as the projection reads it: its topic's logical name and its decoded value (null for a tombstone). */
export interface ProjectedRecord {
  topic: string;
  partition: number;
  offset: string;
  /** The generation of its topic (topic-generations.ts); 0 when not given. */
  generation?: number;
  /** The record's timestamp (epoch ms). */
  timestamp: number;
  key: string | null;
  headers: IHeaders | undefined;
  value: unknown;
}

/** Where a record was in its topic: the topic's generation (0 when not given), partition and offset. */
interface Position {
  generation?: number;
  partition: number;
  offset: string;
}

/** The sampled trace a record belongs to (its traceparent header): what links a row to its trace; null or absent when none. */
interface Traced {
  traceId?: string | null;
}

export type Fact =
  | { kind: 'partner'; partnerId: string; partner: Partner | null }
  | ({ kind: 'delivery'; request: CallbackRequestValue; publishedAt?: number | null; writtenAt?: number } & Traced)
  | ({ kind: 'attempt'; outcome: CallbackOutcome } & Position & Traced)
  | { kind: 'dead-letter'; deadLetter: DeadLetterFact; request: CallbackRequestValue | null }
  | { kind: 'replay'; replay: AuditEntry }
  | ({ kind: 'webhook'; webhookId: string; event: PartnerEventValue; documentIds: string[] } & Traced)
  | { kind: 'document'; document: PartnerDocumentValue }
  | { kind: 'audit'; entry: AdminAuditEntry }
  | ({ kind: 'rejected-webhook'; rejection: InboundRejectionValue } & Position)
  | ({ kind: 'webhook-replay'; webhookId: string; replay: InboundReplayValue } & Position);

export interface DeadLetterFact extends Position {
  sourceTopic: string;
  subjectId: string | null;
  partnerId: string | null;
  attempts: number | null;
  errorClass: string | null;
  reason: string | null;
  deadLetteredAt: number;
}

/** The fact a record states, or null for records that state none (a dry run's audit record). */
export function factOf(record: ProjectedRecord): Fact | null {
  switch (record.topic) {
    case TopicNames.partnerConfig:
      return {
        kind: 'partner',
        partnerId: record.key ?? '',
        partner: record.value === null ? null : partnerFromRecord(record.value as Record<string, unknown>),
      };
    case TopicNames.callbackRequests:
      return {
        kind: 'delivery',
        request: record.value as CallbackRequestValue,
        publishedAt: publishedAtOf(record.headers),
        // A retry now's request is the delivery's own again (its created_at the delivery's): when it was asked is when it was written.
        writtenAt: record.timestamp,
        traceId: sampledTraceIdOf(record.headers),
      };
    case TopicNames.callbackOutcomes:
      return {
        kind: 'attempt',
        ...positionOf(record),
        outcome: record.value as CallbackOutcome,
        traceId: sampledTraceIdOf(record.headers),
      };
    case TopicNames.callbackDlq:
      return { kind: 'dead-letter', deadLetter: deadLetterOf(record), request: record.value as CallbackRequestValue | null };
    case TopicNames.documentDlq:
    case TopicNames.policyStatusDlq:
      return { kind: 'dead-letter', deadLetter: deadLetterOf(record), request: null };
    case TopicNames.dlqReplayAudit: {
      const replay = record.value as AuditEntry;
      return replay.dry_run ? null : { kind: 'replay', replay };
    }
    case TopicNames.partnerEvents: {
      const event = record.value as PartnerEventValue;
      return {
        kind: 'webhook',
        webhookId: webhookIdOf(event),
        event,
        documentIds: event.documents.map((_, i) => documentIdOf(event, i)),
        traceId: sampledTraceIdOf(record.headers),
      };
    }
    case TopicNames.partnerDocuments:
      return { kind: 'document', document: record.value as PartnerDocumentValue };
    case TopicNames.adminAudit:
      return { kind: 'audit', entry: record.value as AdminAuditEntry };
    case TopicNames.inboundRejections:
      return {
        kind: 'rejected-webhook',
        ...positionOf(record),
        rejection: record.value as InboundRejectionValue,
      };
    case TopicNames.inboundReplays: {
      const replay = record.value as InboundReplayValue;
      // The replayed webhook's id, as its partner-events record gives it: the same four fields.
      return { kind: 'webhook-replay', ...positionOf(record), webhookId: webhookIdOf(replay), replay };
    }
    default:
      return null;
  }
}

/**
 * The core system's publish time the fan-out copied onto a request (CallbackRequestHeaders.publishedAt);
 * null when absent, not a time, or one the store cannot hold: it is the core system's producer's
 * record timestamp, any number it set, and one past the year 9999 would fail the projection's batch
 * on every try.
 */
function publishedAtOf(headers: IHeaders | undefined): number | null {
  const at = Number(headerText(headers, CallbackRequestHeaders.publishedAt));
  return Number.isSafeInteger(at) && at > 0 && isStorableTime(at) ? at : null;
}

const positionOf = (record: ProjectedRecord): Required<Position> => ({
  generation: record.generation ?? 0,
  partition: record.partition,
  offset: record.offset,
});

const pickFailure = ({ attempts, errorClass, reason }: ReturnType<typeof failureOf>) => ({ attempts, errorClass, reason });

/** Who a dead letter is about and why, from the headers every dead-letter topic's records carry. */
function deadLetterOf(record: ProjectedRecord): DeadLetterFact {
  const h = record.headers;
  const value = record.value as Record<string, unknown> | null;
  const subjectId =
    record.topic === TopicNames.callbackDlq
      ? ((value?.['delivery_id'] as string | undefined) ?? headerText(h, DeadLetterIdentityHeaders.deliveryId))
      : record.topic === TopicNames.documentDlq
        ? (value?.['document_id'] as string | undefined)
        : headerText(h, DeadLetterIdentityHeaders.eventId);
  return {
    sourceTopic: record.topic,
    ...positionOf(record),
    subjectId: subjectId ?? null,
    partnerId: (value?.['partner_id'] as string | undefined) ?? headerText(h, DeadLetterIdentityHeaders.partnerId) ?? null,
    // Why, as `hookstream dlq` reads it.
    ...pickFailure(failureOf(h)),
    deadLetteredAt: record.timestamp,
  };
}
