/*
 * What the log's store can hold, for the checks that keep inputs within it: a value outside is the
 * caller's mistake (a 400 naming the field), never the store's refusal (a 500). Year 0 and times
 * past a store's range (22008, 22009) are refused before any store sees them. A NUL character in a text needs no check: the store
 * writes it as U+FFFD in every statement (without-nul.ts), so a filter still finds what it stored.
 */

/** The first and last instants an input may name: the Unix epoch (nothing here is older) to the last 4-digit year. */
export const EARLIEST_TIME = Date.UTC(1970, 0, 1);
export const LATEST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const TIME_RANGE_MESSAGE = 'must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z';

/** Whether `at` (a Date or epoch millis) is a time the store holds and an input may name. */
export function isStorableTime(at: Date | number): boolean {
  const ms = typeof at === 'number' ? at : at.getTime();
  return Number.isFinite(ms) && ms >= EARLIEST_TIME && ms <= LATEST_TIME;
}

/** The longest id the log keeps (anything longer is no id of ours). */
export const MAX_ID_LENGTH = 200;
