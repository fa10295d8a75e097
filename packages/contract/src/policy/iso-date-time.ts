/**
 * ISO 8601 dates and date-times as the contract writes them (spec 2.1: start_protection_at and
 * the like). Parsed by hand rather than with Date.parse, which accepts far more than ISO 8601
 * and differs between engines; shared by event parsing (refusing bad values at publishing) and
 * the callback body's date formats.
 */

/** A parsed ISO 8601 date or date-time (extended format). */
export interface IsoDateTime {
  year: number;
  month: number;
  day: number;
  /** False for a date alone (`2026-01-08`); the time fields are then 0. */
  hasTime: boolean;
  hour: number;
  minute: number;
  second: number;
  /** Fractional seconds truncated to milliseconds. */
  millisecond: number;
  /** UTC offset in minutes (`Z` is 0); null when the text has none (a date, or a local date-time). */
  offsetMinutes: number | null;
}

/** The calendar and clock fields of a date-time, without its offset. */
export type WallClock = Pick<IsoDateTime, 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'millisecond'>;

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?)?$/i;

/**
 * Parses `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM|±HHMM|±HH]`, checking that the
 * date exists and every part is in range. Undefined for anything else (no week or ordinal
 * dates, no basic format without separators).
 */
export function parseIsoDateTime(text: string): IsoDateTime | undefined {
  const m = ISO_8601.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const hasTime = m[4] !== undefined;
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const millisecond = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  let offsetMinutes: number | null = null;
  if (m[8]) offsetMinutes = 0;
  else if (m[9]) {
    const [oh, om] = [Number(m[10]), Number(m[11] ?? 0)];
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return { year, month, day, hasTime, hour, minute, second, millisecond, offsetMinutes };
}

function daysInMonth(year: number, month: number): number {
  return [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Epoch milliseconds of a wall-clock time read as UTC (years below 100 included). */
export function utcMillis(t: WallClock): number {
  const date = new Date(0);
  date.setUTCFullYear(t.year, t.month - 1, t.day);
  date.setUTCHours(t.hour, t.minute, t.second, t.millisecond);
  return date.getTime();
}
