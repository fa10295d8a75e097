import { attemptWords, isoOf, statusWords, typedTime, when, zoneName } from '../../console/src/format';

describe('a time as the console shows it', () => {
  test('is the wall-clock time at the viewer’s offset, with the offset named', () => {
    expect(when('2026-11-28T02:14:03Z', 7 * 60)).toBe('2026-11-28 09:14:03 UTC+07:00');
    expect(when('2026-11-28T09:14:03+07:00', 7 * 60)).toBe('2026-11-28 09:14:03 UTC+07:00');
  });

  test('on UTC says UTC, and a zone west of it or off the hour is written as such', () => {
    expect(when('2026-11-28T02:14:03.987Z', 0)).toBe('2026-11-28 02:14:03 UTC');
    expect(when('2026-11-28T02:14:03Z', -(3 * 60 + 30))).toBe('2026-11-27 22:44:03 UTC-03:30');
    expect(when('2026-11-28T20:00:00Z', 5 * 60 + 45)).toBe('2026-11-29 01:45:00 UTC+05:45');
  });

  test('without an offset given, uses the viewer’s own at that instant', () => {
    const at = '2026-07-01T12:00:00Z';
    expect(when(at)).toBe(when(at, -new Date(at).getTimezoneOffset()));
    expect(when(at)).toMatch(/^2026-07-01 \d\d:\d\d:00 UTC([+-]\d\d:\d\d)?$/);
  });

  test('a missing time is a dash, and text that is not a time is shown as it is', () => {
    expect(when(null)).toBe('–');
    expect(when(undefined)).toBe('–');
    expect(when('')).toBe('–');
    expect(when('not a time', 0)).toBe('not a time');
  });

  test('zone names', () => {
    expect([zoneName(0), zoneName(60), zoneName(-480), zoneName(330)]).toEqual(['UTC', 'UTC+01:00', 'UTC-08:00', 'UTC+05:30']);
  });
});

describe('a time as typed in the console: ISO, 24-hour, the viewer’s time', () => {
  test('is written and read back as YYYY-MM-DD HH:MM, seconds and a T allowed; anything else is no time', () => {
    const date = new Date(2026, 10, 28, 14, 5);
    expect(typedTime(date)).toBe('2026-11-28 14:05');
    expect(isoOf('2026-11-28 14:05')).toBe(date.toISOString());
    expect(isoOf(' 2026-11-28T14:05:00 ')).toBe(date.toISOString());
    expect(isoOf('11/28/2026 02:05 PM')).toBeUndefined();
    expect(isoOf('')).toBeUndefined();
  });
});

describe('one word per thing (docs/console.md): an attempt and a policy status in the words every view uses', () => {
  test('an attempt is a first try, a retry n, or one asked for: retry now or test event, never its tier', () => {
    expect(attemptWords({ tier: 0, trigger: null })).toBe('first try');
    expect(attemptWords({ tier: 3, trigger: null })).toBe('retry 3');
    expect(attemptWords({ tier: 0, trigger: 'RETRY_NOW' })).toBe('retry now');
    expect(attemptWords({ tier: 0, trigger: 'TEST' })).toBe('test event');
  });

  test('a status reads as policy active, never active alone nor Policy active in one place and active in another', () => {
    expect(['POLICY_ISSUING', 'POLICY_ACTIVE', 'POLICY_CANCELLED'].map(statusWords)).toEqual([
      'policy issuing',
      'policy active',
      'policy cancelled',
    ]);
  });
});
