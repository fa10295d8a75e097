/*
 * What a document retrieval's record carries through the retry tiers and into document-dlq: the
 * callbacks' retry header names (shared: `hookstream dlq` reads them) and the replay count.
 */
import { CallbackRetryHeaders, DocumentHeaders, type ConsumedRecord, type IHeaders } from '@hookstream/shared';
import type { RetrievalHistory } from '../domain/fetch-document';

export const RetryHeaders = CallbackRetryHeaders;

export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

function count(headers: IHeaders | undefined, name: string): number {
  const n = Number(headerText(headers, name) ?? 0);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** Attempts made before this read, and which replay of its dead letter (0 on partner-events). */
export function historyOf(headers: IHeaders | undefined): RetrievalHistory {
  return { attempts: count(headers, RetryHeaders.attempts), replay: count(headers, DocumentHeaders.replayCount) };
}

/** When a tier record may be attempted (epoch ms); an absent or unreadable header means now. */
export function dueAtOf(headers: IHeaders | undefined): number {
  const dueAt = Number(headerText(headers, RetryHeaders.dueAt) ?? 0);
  return Number.isFinite(dueAt) ? dueAt : 0;
}

/** Where the retrieval was first read: the partner-events record (carried from tier to tier). */
export interface Origin {
  topic: string;
  partition: number;
  offset: string;
}

/** A record's origin: itself on partner-events; on a tier, what its headers carry (itself when they carry none). */
export function originOf({ topic, partition, message }: ConsumedRecord, fresh: boolean): Origin {
  const partitionText = headerText(message.headers, RetryHeaders.originalPartition);
  if (fresh || partitionText === undefined || !/^\d+$/.test(partitionText)) return { topic, partition, offset: message.offset };
  return {
    topic: headerText(message.headers, RetryHeaders.originalTopic) ?? topic,
    partition: Number(partitionText),
    offset: headerText(message.headers, RetryHeaders.originalOffset) ?? message.offset,
  };
}

/** Headers of a retrieval going into retry tier after a failed attempt. */
export function retryHeaders(
  origin: Origin,
  history: RetrievalHistory,
  at: { attempts: number; dueAt: number; now: number; lastError: string },
  firstFailureAt: string | undefined,
): IHeaders {
  return {
    [RetryHeaders.originalTopic]: origin.topic,
    [RetryHeaders.originalPartition]: String(origin.partition),
    [RetryHeaders.originalOffset]: origin.offset,
    [RetryHeaders.attempts]: String(at.attempts),
    [RetryHeaders.dueAt]: String(at.dueAt),
    [RetryHeaders.firstFailureAt]: firstFailureAt ?? String(at.now),
    [RetryHeaders.lastFailureAt]: String(at.now),
    [RetryHeaders.lastError]: at.lastError.slice(0, 500),
    ...(history.replay > 0 ? { [DocumentHeaders.replayCount]: String(history.replay) } : {}),
  };
}
