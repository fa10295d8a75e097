import type { FieldFormat } from '@hookstream/partners';
import { CallbackBodyError } from './callback-body-error';
import { parseIsoDateTime, utcMillis, type WallClock } from './iso-date-time';
import { zoneClock } from './zone-clock';

/**
 * The date formats a partner's body rule may ask for (FieldRule.format): the same instant
 * written as a date, as UTC, or in a time zone, whatever offset the core system wrote it in.
 */

/**
 * Formats an ISO 8601 date or date-time (FieldRule.format):
 * - DATE_ONLY: `YYYY-MM-DD`, the calendar date in the value's own offset as written, or in
 *   `timeZone` when given.
 * - DATE_TIME_UTC: `YYYY-MM-DDTHH:MM:SSZ` (`timeZone` only reads local values).
 * - DATE_TIME_ZONE: `YYYY-MM-DDTHH:MM:SS±HH:MM`, the wall-clock time in `timeZone` and its
 *   offset then; without a zone, the value's own offset.
 * Milliseconds (`.sss`) appear only when the instant has some, so a whole second prints without
 * them; finer digits are dropped. A value without an offset (a date alone, or a local date-time)
 * is wall-clock time in `timeZone`, else in UTC.
 * Throws {@link CallbackBodyError} naming `field` when the value is not ISO 8601 or the zone unknown.
 */
export function formatDateTime(value: string, format: FieldFormat, timeZone: string | null, field = 'value'): string {
  const parsed = parseIsoDateTime(value);
  if (!parsed) throw new CallbackBodyError(field, value, `is not an ISO 8601 date-time, so it cannot be formatted as ${format}`);
  const zone = timeZone ? zoneClock(timeZone, field) : undefined;
  const instant =
    parsed.offsetMinutes !== null ? utcMillis(parsed) - parsed.offsetMinutes * 60_000 : zone ? zone.instantOf(parsed) : utcMillis(parsed);
  switch (format) {
    case 'DATE_ONLY':
      return datePart(zone ? zone.wallClock(instant) : parsed);
    case 'DATE_TIME_UTC':
      return `${datePart(wallClockUtc(instant))}T${timePart(wallClockUtc(instant))}Z`;
    case 'DATE_TIME_ZONE': {
      if (!zone) return `${datePart(parsed)}T${timePart(parsed)}${offsetText(parsed.offsetMinutes ?? 0)}`;
      const wall = zone.wallClock(instant);
      return `${datePart(wall)}T${timePart(wall)}${offsetText((utcMillis(wall) - instant) / 60_000)}`;
    }
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const datePart = (t: WallClock) => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;
const timePart = (t: WallClock) => `${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}${t.millisecond ? `.${pad(t.millisecond, 3)}` : ''}`;

function offsetText(minutes: number): string {
  const whole = Math.round(minutes);
  const abs = Math.abs(whole);
  return `${whole < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function wallClockUtc(instant: number): WallClock {
  const d = new Date(instant);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
}
