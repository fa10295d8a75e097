/*
 * The Kafka headers a record carries through its retry tiers and into its dead-letter topic, and
 * what they say of its past: written and read by the callback-sender and the document-fetcher,
 * read by `hookstream dlq`. One set of names for both services.
 */
import type { IHeaders } from '../types';

/** Names of the headers a record carries through the retry tiers and into the dead-letter topic. */
export const RetryHeaders = {
  /** Attempts made so far (the first is attempt 1). */
  attempts: 'hookstream-attempts',
  /** Epoch ms before which the record must not be attempted again. */
  dueAt: 'hookstream-due-at',
  /** Times the record went back unattempted (its partner's circuit open) since its last attempt. */
  skips: 'hookstream-skips',
  firstFailureAt: 'hookstream-first-failure-at',
  lastFailureAt: 'hookstream-last-failure-at',
  /** The last failure: `HTTP 500`, `TIMEOUT: …`; in a dead letter, why it was dead-lettered. */
  lastError: 'hookstream-last-error',
  /** The partner's last HTTP answer to an attempt, kept through later attempts that got none (a timeout, an open circuit). */
  lastHttpStatus: 'hookstream-last-http-status',
  /** The failure class of the last attempt made (HTTP_STATUS, TIMEOUT …), kept through skips; a dead letter's own class may differ (CIRCUIT_OPEN). */
  lastAttemptErrorClass: 'hookstream-last-attempt-error-class',
  /** Where the record was first read (callback-requests, partner-events): topic, partition, offset. */
  originalTopic: 'hookstream-original-topic',
  originalPartition: 'hookstream-original-partition',
  originalOffset: 'hookstream-original-offset',
} as const;

/** One header as text (its first value when repeated), or undefined when absent. */
export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/** A header holding a whole number written as text, or null when absent or not one. */
export function headerCount(headers: IHeaders | undefined, name: string): number | null {
  const text = headerText(headers, name);
  if (text === undefined) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** What a record's headers say of its past before this read of it (zero and null where it was first read). */
export interface RetryHistory {
  /** Attempts made so far. */
  attempts: number;
  /** Times it went back unattempted since its last attempt. */
  skips: number;
  /** When its first attempt failed, or it was first skipped (epoch ms). */
  firstFailureAt: number | null;
}

export function retryHistoryOf(headers: IHeaders | undefined): RetryHistory {
  const first = Number(headerText(headers, RetryHeaders.firstFailureAt));
  return {
    attempts: headerCount(headers, RetryHeaders.attempts) ?? 0,
    skips: headerCount(headers, RetryHeaders.skips) ?? 0,
    firstFailureAt: Number.isFinite(first) && first > 0 ? first : null,
  };
}

/** When a tier record may be attempted (epoch ms); an absent or unreadable header means now. */
export function dueAtOf(headers: IHeaders | undefined): number {
  const dueAt = Number(headerText(headers, RetryHeaders.dueAt) ?? 0);
  return Number.isFinite(dueAt) ? dueAt : 0;
}

/** Where a record was first read, carried from tier to tier. */
export interface Origin {
  topic: string;
  partition: number;
  offset: string;
}

/** A record's origin: where it was read when that is not a tier; otherwise what its headers carry (itself when they carry none). */
export function originOf(
  record: { topic: string; partition: number; message: { offset: string; headers?: IHeaders } },
  onTier: boolean,
): Origin {
  const { topic, partition, message } = record;
  const partitionText = headerText(message.headers, RetryHeaders.originalPartition) ?? '';
  const offsetText = headerText(message.headers, RetryHeaders.originalOffset) ?? '';
  const carried = /^\d{1,9}$/.test(partitionText) && /^\d{1,19}$/.test(offsetText);
  if (!onTier || !carried) return { topic, partition, offset: message.offset };
  return { topic: headerText(message.headers, RetryHeaders.originalTopic) ?? topic, partition: Number(partitionText), offset: offsetText };
}

/** The headers that say where a record was first read. */
export function originHeaders(origin: Origin): IHeaders {
  return {
    [RetryHeaders.originalTopic]: origin.topic,
    [RetryHeaders.originalPartition]: String(origin.partition),
    [RetryHeaders.originalOffset]: origin.offset,
  };
}

/** What is written of a record's past as it goes into a tier (with `dueAt`) or the dead-letter topic (without). */
export interface TierEntry {
  origin: Origin;
  /** Attempts made, this one included. */
  attempts: number;
  /** Times it went back unattempted since its last attempt (callbacks only). */
  skips?: number;
  /** From its history; null on its first failure. */
  firstFailureAt: number | null;
  dueAt?: number;
  /** The failure to record as the last one; absent when it went back unattempted (the last one's are kept by the caller). */
  lastError?: string;
  /** What the attempt just made got, when one was made: the partner's HTTP status (null: no answer) and the failure class. */
  attempt?: { httpStatus: number | null; errorClass: string | null };
  now: number;
}

/** The retry headers of a record entering a tier or the dead-letter topic. */
export function retryHeaders(entry: TierEntry): IHeaders {
  const { origin, now } = entry;
  const headers: IHeaders = {
    ...originHeaders(origin),
    [RetryHeaders.attempts]: String(entry.attempts),
    // The wait has lasted since then (deadlines count from it); a missing or future value starts it now.
    [RetryHeaders.firstFailureAt]: String(Math.min(entry.firstFailureAt ?? now, now)),
  };
  if (entry.dueAt !== undefined) headers[RetryHeaders.dueAt] = String(entry.dueAt);
  if (entry.skips !== undefined) headers[RetryHeaders.skips] = String(entry.skips);
  if (entry.lastError !== undefined) {
    headers[RetryHeaders.lastFailureAt] = String(now);
    headers[RetryHeaders.lastError] = entry.lastError.slice(0, 500);
  }
  if (entry.attempt?.httpStatus != null) headers[RetryHeaders.lastHttpStatus] = String(entry.attempt.httpStatus);
  if (entry.attempt?.errorClass != null) headers[RetryHeaders.lastAttemptErrorClass] = entry.attempt.errorClass;
  return headers;
}
