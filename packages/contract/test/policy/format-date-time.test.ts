import { CallbackBodyError } from '../../src/policy/callback-body-error';
import { formatDateTime } from '../../src/policy/format-date-time';

describe('formatDateTime', () => {
  test.each<[string, 'DATE_ONLY' | 'DATE_TIME_UTC' | 'DATE_TIME_ZONE', string | null, string]>([
    ['2026-01-08T00:00:00+07:00', 'DATE_ONLY', null, '2026-01-08'],
    ['2026-01-08T00:00:00+07:00', 'DATE_ONLY', 'Asia/Jakarta', '2026-01-08'],
    ['2026-01-08T00:00:00+07:00', 'DATE_ONLY', 'UTC', '2026-01-07'],
    ['2026-01-07T20:00:00Z', 'DATE_ONLY', 'Asia/Jakarta', '2026-01-08'],
    ['2026-01-08', 'DATE_ONLY', null, '2026-01-08'],
    ['2026-01-08T23:30:00', 'DATE_ONLY', 'America/New_York', '2026-01-08'],
    ['2026-01-08T00:00:00+07:00', 'DATE_TIME_UTC', null, '2026-01-07T17:00:00Z'],
    ['2026-01-08T00:00:00.250+07:00', 'DATE_TIME_UTC', null, '2026-01-07T17:00:00.250Z'],
    ['2026-01-08T00:00:00,123456+0700', 'DATE_TIME_UTC', null, '2026-01-07T17:00:00.123Z'],
    ['2026-01-08T00:00+07', 'DATE_TIME_UTC', 'Europe/London', '2026-01-07T17:00:00Z'],
    ['2026-01-08', 'DATE_TIME_UTC', null, '2026-01-08T00:00:00Z'],
    ['2026-01-08T00:00:00', 'DATE_TIME_UTC', 'Asia/Jakarta', '2026-01-07T17:00:00Z'],
    ['2026-01-07T17:00:00Z', 'DATE_TIME_ZONE', 'Asia/Jakarta', '2026-01-08T00:00:00+07:00'],
    ['2026-01-07T18:30:00Z', 'DATE_TIME_ZONE', 'Asia/Kolkata', '2026-01-08T00:00:00+05:30'],
    ['2026-01-15T12:00:00Z', 'DATE_TIME_ZONE', 'America/New_York', '2026-01-15T07:00:00-05:00'],
    ['2026-07-01T12:00:00Z', 'DATE_TIME_ZONE', 'America/New_York', '2026-07-01T08:00:00-04:00'],
    ['2026-07-01T12:00:00.5Z', 'DATE_TIME_ZONE', 'UTC', '2026-07-01T12:00:00.500+00:00'],
    ['2026-01-08T00:00:00+0700', 'DATE_TIME_ZONE', null, '2026-01-08T00:00:00+07:00'],
    ['2026-07-01T08:00:00', 'DATE_TIME_ZONE', 'America/New_York', '2026-07-01T08:00:00-04:00'],
  ])('%s as %s in %s is %s', (value, format, zone, expected) => {
    expect(formatDateTime(value, format, zone)).toBe(expected);
  });

  test.each([
    '08/01/2026',
    '2026-02-30T00:00:00Z',
    '2026-01-08T24:00:00Z',
    '2026-01-08T10:00:00+25:00',
    '20260108T000000Z',
    'Jan 8 2026',
    '',
  ])('%j is refused', (value) => {
    expect(() => formatDateTime(value, 'DATE_TIME_UTC', null, 'start_protection_at')).toThrow(CallbackBodyError);
  });

  test('an unknown time zone is refused', () => {
    expect(() => formatDateTime('2026-01-08T00:00:00Z', 'DATE_ONLY', 'Mars/Olympus', 'start_protection_at')).toThrow(
      /start_protection_at: "Mars\/Olympus" is not an IANA time zone/,
    );
  });
});
