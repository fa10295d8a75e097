import { limitFlag, offsetsFlag, rateFlag, selectionFromFlags, timeFlag, topicFlag } from '../../src/commands/dlq-flags';
import { InputRefused } from '../../src/exit-codes';

const now = Date.parse('2026-11-23T12:00:00Z');

describe('timeFlag', () => {
  test.each([
    ['2h', now - 2 * 3_600_000],
    ['90m', now - 90 * 60_000],
    ['1h30m', now - 90 * 60_000],
    ['1d', now - 86_400_000],
    ['2026-11-23T08:00:00Z', Date.parse('2026-11-23T08:00:00Z')],
    ['2026-11-23T08:00:00+07:00', Date.parse('2026-11-23T01:00:00Z')],
    ['2026-11-23', Date.parse('2026-11-23T00:00:00Z')],
  ])('when given %s, then it is that time', (value, expected) => {
    expect(timeFlag('since', value, now)).toBe(expected);
  });

  test.each(['yesterday', '2h ago', '-2h', '2026-13-45', '23/11/2026', ''])(
    'when given %j, then it is refused naming the flag',
    (value) => {
      expect(() => timeFlag('until', value, now)).toThrow(InputRefused);
      expect(() => timeFlag('until', value, now)).toThrow(/^--until: /);
    },
  );
});

describe('offsetsFlag', () => {
  test('when given ranges and single offsets, then each is an inclusive range', () => {
    expect(offsetsFlag('0:10-20, 3:7')).toEqual([
      { partition: 0, from: 10n, to: 20n },
      { partition: 3, from: 7n, to: 7n },
    ]);
  });

  test.each(['0', '0:', ':5', '0:a-b', '0:5-', '-1:5', '0:20-10', ','])('when given %j, then it is refused naming --offsets', (value) => {
    expect(() => offsetsFlag(value)).toThrow(/^--offsets: /);
  });
});

test.each([
  ['50/s', 50],
  ['50', 50],
  ['0.5/s', 0.5],
])('rateFlag reads %s as %d per second', (value, expected) => expect(rateFlag(value)).toBe(expected));

test.each(['0', 'fast', '50/m', '-1/s', '20000/s'])('rateFlag refuses %j naming --rate', (value) => {
  expect(() => rateFlag(value)).toThrow(/^--rate: /);
});

test('limitFlag takes a whole number of at least 1 and refuses anything else', () => {
  expect(limitFlag('10')).toBe(10);
  expect(limitFlag(undefined)).toBeUndefined();
  for (const bad of ['0', '-1', '1.5', 'ten']) expect(() => limitFlag(bad)).toThrow(/^--limit: /);
});

test('topicFlag takes callback (the default), policy-status and documents, and refuses any other', () => {
  expect(topicFlag(undefined)).toBe('callback');
  expect(topicFlag('policy-status')).toBe('policy-status');
  expect(topicFlag('documents')).toBe('documents');
  expect(() => topicFlag('callbacks')).toThrow(/^--topic: "callbacks" is not a dead-letter topic/);
});

describe('selectionFromFlags', () => {
  test('when flags are given, then each becomes its filter, lists split on commas', () => {
    expect(
      selectionFromFlags({ partner: 'a, b', lastStatus: '500,503', errorClass: 'TIMEOUT', since: '1h', undecodable: true }, now),
    ).toEqual({ partners: ['a', 'b'], lastStatuses: [500, 503], errorClasses: ['TIMEOUT'], since: now - 3_600_000, undecodable: true });
  });

  test('when a filter is empty, a status is not one or the range is backwards, then it is refused naming the flag', () => {
    expect(() => selectionFromFlags({ partner: ' , ' }, now)).toThrow(/^--partner: give at least one value/);
    expect(() => selectionFromFlags({ lastStatus: '700' }, now)).toThrow(/^--last-status: "700"/);
    expect(() => selectionFromFlags({ since: '1h', until: '2h' }, now)).toThrow(/^--since .* must be before --until/);
  });
});
