/** How the console writes times, durations and rates. */

/**
 * A time as the console shows it everywhere: the viewer's local time with its offset from UTC, so it
 * can be compared with the times in bodies (+07:00) and headers (UTC) without guessing the zone:
 * `2026-11-28 09:14:03 UTC+07:00`, or `2026-11-28 02:14:03 UTC` where the viewer is on UTC.
 * `offsetMinutes` (east of UTC) is the viewer's at that instant unless given (the tests give it).
 */
export function when(iso: string | number | null | undefined, offsetMinutes?: number): string {
  if (iso === null || iso === undefined || iso === '') return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const offset = offsetMinutes ?? -date.getTimezoneOffset();
  const shifted = new Date(date.getTime() + offset * 60_000);
  const text = shifted.toISOString(); // the wall-clock time at that offset, read in UTC fields
  return `${text.slice(0, 10)} ${text.slice(11, 19)} ${zoneName(offset)}`;
}

/**
 * How a time is typed: as the console writes them (ISO, 24-hour), in the viewer's time, seconds
 * optional, a T allowed for the space. Not the browser's datetime-local input: Chromium shows it in
 * its locale's form (mm/dd/yyyy, AM/PM in the US) beside every other time in ISO form.
 */
export const TYPED_TIME = { placeholder: 'YYYY-MM-DD HH:MM', pattern: '\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}(:\\d{2})?' } as const;

/** `date` as a typed time (TYPED_TIME) in the viewer's time: `2026-11-28 14:05`. */
export function typedTime(date: Date): string {
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16).replace('T', ' ');
}

/** A typed time (the viewer's time) as RFC 3339; undefined for nothing or anything else. */
export function isoOf(typed: string | undefined): string | undefined {
  const text = typed?.trim();
  if (!text || !new RegExp(`^${TYPED_TIME.pattern}$`).test(text)) return undefined;
  // Without an offset, ECMAScript reads a date-time as local time.
  const date = new Date(text.replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * Which send an attempt was, in the words every view uses (docs/console.md, one word per thing):
 * "first try", "retry 2", and for one asked for, "retry now" or "test event", never its tier.
 */
export function attemptWords(attempt: { tier: number; trigger?: string | null }): string {
  if (attempt.trigger === 'RETRY_NOW') return 'retry now';
  if (attempt.trigger === 'TEST') return 'test event';
  return attempt.tier === 0 ? 'first try' : `retry ${attempt.tier}`;
}

/** A policy status in words, as every view writes it: POLICY_ACTIVE is "policy active". */
export function statusWords(status: string): string {
  return status.toLowerCase().replace(/_/g, ' ');
}

/** `UTC`, `UTC+07:00`, `UTC-03:30`. */
export function zoneName(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'UTC';
  const sign = offsetMinutes > 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

export function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? '–' : `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)} %`;
}

/** JSON text pretty-printed when it is JSON, else as it is. */
export function pretty(text: string | null | undefined): string {
  if (!text) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** An endpoint as a person knows it: its name with its id ("Claims system (ep-2)"), or the id alone when it has none. */
export function endpointLabel(endpoint: { endpoint_id: string; name?: string | null }): string {
  return endpoint.name ? `${endpoint.name} (${endpoint.endpoint_id})` : endpoint.endpoint_id;
}
