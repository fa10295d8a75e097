/*
 * An audit record's detail as a person reads it: every time in it (epoch milliseconds under a
 * time's name, RFC 3339 texts) written as a time with its zone, the original kept beside it.
 */
import { when } from './format';

/** Epoch milliseconds between 2001 and 2286: a time, not a count. */
const isEpochMs = (value: unknown, key: string) =>
  typeof value === 'number' &&
  Number.isInteger(value) &&
  value >= 1e12 &&
  value < 1e13 &&
  /(^|_)(at|ms|time|since|until|expires?)($|_)/.test(key);
const isTimeText = (value: unknown) =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value));

/** The detail with each time given as it reads: "2026-11-28 10:00:00 UTC (1764324000000)". */
export function readable(value: unknown, key = ''): unknown {
  if (isEpochMs(value, key)) return `${when(value as number)} (${String(value)})`;
  if (isTimeText(value)) return `${when(value as string)} (${value as string})`;
  if (Array.isArray(value)) return value.map((v) => readable(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, readable(v, k)]));
  }
  return value;
}
