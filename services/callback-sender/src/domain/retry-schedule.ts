/*
 * The retry schedule of a callback (spec 8): the headers a record carries through the retry tiers,
 * what they say of its past, and which tier a failed attempt goes to next.
 */
import { CallbackRetryHeaders, type IHeaders } from '@hookstream/shared';

/** Kafka headers a callback record carries through the retry tiers and into the dead-letter topic (shared: `hookstream dlq` reads them). */
export const RetryHeaders = CallbackRetryHeaders;

/** Reads one header as text. */
export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/** What a record's headers say of its past before this read of it (all zero/null on callback-requests). */
export interface RetryHistory {
  /** Attempts made so far. */
  attempts: number;
  /** Times it went back unattempted since its last attempt. */
  skips: number;
  /** When its first attempt failed, or it was first skipped (epoch ms). */
  firstFailureAt: number | null;
}

const count = (headers: IHeaders | undefined, name: string) => {
  const n = Number(headerText(headers, name) ?? 0);
  return Number.isInteger(n) && n >= 0 ? n : 0;
};

export function retryHistory(headers: IHeaders | undefined): RetryHistory {
  const first = Number(headerText(headers, RetryHeaders.firstFailureAt));
  return {
    attempts: count(headers, RetryHeaders.attempts),
    skips: count(headers, RetryHeaders.skips),
    firstFailureAt: Number.isFinite(first) && first > 0 ? first : null,
  };
}

/** When a tier record may be attempted (epoch ms); an absent or unreadable header means now. */
export function dueAtOf(headers: IHeaders | undefined): number {
  const dueAt = Number(headerText(headers, RetryHeaders.dueAt) ?? 0);
  return Number.isFinite(dueAt) ? dueAt : 0;
}

/** How long the whole retry schedule lasts: the tiers' delays added up. */
export function retryScheduleMs(delaysMs: readonly number[]): number {
  return delaysMs.reduce((sum, delay) => sum + delay, 0);
}

/** Where a delivery goes after a failed attempt: a retry tier (due at dueAt), or the dead-letter topic. */
export type NextTier = { kind: 'retry'; tier: number; dueAt: number } | { kind: 'dead-letter' };

/**
 * The tier for a record that must wait at least `waitMs`: the first from `fromTier` on whose
 * delay is that long, else the longest from there. The record's due time is then always its
 * write time plus its tier's fixed delay, so every tier partition's records come due in the
 * order they sit in it. A due time of its own (a partner's Retry-After, a random spread) would
 * break that: the consumer stops a tier partition at its first record not yet due, so a record
 * due in an hour at its head would hold back every other partner's retries behind it for an hour.
 */
export function tierAtLeast(waitMs: number, fromTier: number, delaysMs: readonly number[]): number {
  let longest = fromTier;
  for (let tier = fromTier; tier <= delaysMs.length; tier++) {
    if (delaysMs[tier - 1]! >= waitMs) return tier;
    if (delaysMs[tier - 1]! > delaysMs[longest - 1]!) longest = tier;
  }
  return longest;
}

/**
 * Where a delivery goes after its failed attempt number `attempt` (1-based): retry tier
 * `attempt` after that tier's delay while tiers remain (spec 8: up to 8 retries, exponential
 * backoff), else the dead-letter topic. A retry that must wait longer (`atLeastMs`: the
 * partner's Retry-After) goes to the first later tier whose delay covers it (tierAtLeast).
 */
export function nextTierAfterFailure(attempt: number, delaysMs: readonly number[], now: number, atLeastMs = 0): NextTier {
  if (attempt > delaysMs.length) return { kind: 'dead-letter' };
  const tier = tierAtLeast(atLeastMs, attempt, delaysMs);
  return { kind: 'retry', tier, dueAt: now + delaysMs[tier - 1]! };
}
