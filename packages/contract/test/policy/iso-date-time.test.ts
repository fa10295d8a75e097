import { parseIsoDateTime } from '../../src/policy/iso-date-time';

describe('parseIsoDateTime', () => {
  test('when given a date-time with fractional seconds and an offset, then every part is read, milliseconds truncated', () => {
    expect(parseIsoDateTime('2026-01-08T07:05:09.123456+07:30')).toEqual({
      year: 2026,
      month: 1,
      day: 8,
      hasTime: true,
      hour: 7,
      minute: 5,
      second: 9,
      millisecond: 123,
      offsetMinutes: 450,
    });
  });

  test('when given a date alone or a local date-time, then it has no offset', () => {
    expect(parseIsoDateTime('2026-01-08')).toMatchObject({ hasTime: false, hour: 0, offsetMinutes: null });
    expect(parseIsoDateTime('2026-01-08T23:30')).toMatchObject({ hasTime: true, hour: 23, minute: 30, offsetMinutes: null });
  });

  test.each([
    ['Z', 0],
    ['-05:00', -300],
    ['+0530', 330],
    ['+07', 420],
  ])('when the offset is written %s, then it is %d minutes', (suffix, minutes) => {
    expect(parseIsoDateTime(`2026-01-08T00:00:00${suffix}`)?.offsetMinutes).toBe(minutes);
  });

  test.each(['2024-02-29', '2000-02-29'])('when %s is a leap day, then it is accepted', (text) => {
    expect(parseIsoDateTime(text)).toBeDefined();
  });

  test.each(['2026-02-29', '1900-02-29', '2026-13-01', '2026-01-08T23:60:00Z', '2026-01-08T00:00:00+24:00', '2026-W02-4', '20260108'])(
    'when given %s, then it is not ISO 8601 as the contract writes it',
    (text) => {
      expect(parseIsoDateTime(text)).toBeUndefined();
    },
  );
});
