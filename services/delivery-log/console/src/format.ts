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
