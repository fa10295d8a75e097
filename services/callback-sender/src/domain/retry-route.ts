import type { IHeaders } from '@hookstream/shared';

/** Kafka headers a callback record carries through the retry tiers and into the dead-letter topic. */
export const RetryHeaders = {
  /** Attempts made so far (the first send is attempt 1). */
  attempts: 'hookstream-attempts',
  /** Epoch ms before which the record must not be attempted again. */
  dueAt: 'hookstream-due-at',
  firstFailureAt: 'hookstream-first-failure-at',
  lastFailureAt: 'hookstream-last-failure-at',
  /** The last failure: `HTTP 500`, `TIMEOUT: …`. */
  lastError: 'hookstream-last-error',
  /** Where the delivery was first read: callback-requests topic, partition, offset. */
  originalTopic: 'hookstream-original-topic',
  originalPartition: 'hookstream-original-partition',
  originalOffset: 'hookstream-original-offset',
} as const;

/** Reads one header as text. */
export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/** Attempts already made before this read of the record (0 on callback-requests). */
export function attemptsSoFar(headers: IHeaders | undefined): number {
  const n = Number(headerText(headers, RetryHeaders.attempts) ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

export type RetryRoute = { kind: 'retry'; tier: number; dueAt: number } | { kind: 'dead-letter' };

/**
 * Where a delivery goes after its failed attempt number `attempt` (1-based): retry tier
 * `attempt` after that tier's delay while tiers remain (spec 8: up to 8 retries, exponential
 * backoff), else the dead-letter topic.
 */
export function routeAfterFailure(attempt: number, delaysMs: readonly number[], now: number): RetryRoute {
  if (attempt > delaysMs.length) return { kind: 'dead-letter' };
  return { kind: 'retry', tier: attempt, dueAt: now + delaysMs[attempt - 1]! };
}
