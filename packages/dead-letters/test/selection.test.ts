import { describeSelection, isSelected, NamedIds } from '../src/read/selection';
import { deadLetter } from './letters';

describe('isSelected', () => {
  const letter = deadLetter({ partition: 2, offset: '15' });

  test('when no filter is given, then every dead letter is selected', () => {
    expect(isSelected(letter, {})).toBe(true);
  });

  test.each([
    ['partner', { partners: ['other', 'acme'] }, { partners: ['other'] }],
    ['error class', { errorClasses: ['HTTP_STATUS'] }, { errorClasses: ['TIMEOUT'] }],
    ['last status', { lastStatuses: [503, 500] }, { lastStatuses: [503] }],
    ['policy', { policies: ['POL-1'] }, { policies: ['POL-2'] }],
    ['event id', { eventIds: ['event-1'] }, { eventIds: ['event-2'] }],
    ['delivery id', { deliveryIds: ['delivery-1'] }, { deliveryIds: ['delivery-2'] }],
    ['delivery or event id', { anyIds: ['event-1'] }, { anyIds: ['nothing'] }],
    ['offsets', { offsets: [{ partition: 2, from: 15n, to: 15n }] }, { offsets: [{ partition: 2, from: 16n, to: 20n }] }],
    [
      'offsets of another partition',
      { offsets: [{ partition: 2, from: 0n, to: 99n }] },
      { offsets: [{ partition: 1, from: 0n, to: 99n }] },
    ],
  ])('when filtering by %s, then a matching value selects and another does not', (_what, matching, other) => {
    expect(isSelected(letter, matching)).toBe(true);
    expect(isSelected(letter, other)).toBe(false);
  });

  test('when a thousand letters are chosen one by one beside a range, then each chosen one and the range select, and nothing else', () => {
    const chosen = Array.from({ length: 1000 }, (_, i) => ({ partition: i % 3, from: BigInt(1000 + i), to: BigInt(1000 + i) }));
    const offsets = [...chosen, { partition: 2, from: 10n, to: 20n }];
    expect(isSelected(letter, { offsets })).toBe(true); // in the range
    expect(isSelected(deadLetter({ partition: 1, offset: '1001' }), { offsets })).toBe(true); // chosen: 1001 is i = 1, partition 1
    expect(isSelected(deadLetter({ partition: 0, offset: '1001' }), { offsets })).toBe(false); // that offset, another partition
    expect(isSelected(deadLetter({ partition: 2, offset: '21' }), { offsets })).toBe(false);
  });

  test('when a time range is given, then since is inclusive and until exclusive', () => {
    const at = letter.deadLetteredAt;
    expect(isSelected(letter, { since: at, until: at + 1 })).toBe(true);
    expect(isSelected(letter, { since: at + 1 })).toBe(false);
    expect(isSelected(letter, { until: at })).toBe(false);
  });

  test("when the circuit opened after the partner answered 500, then the dead letter (CIRCUIT_OPEN) is found by its last answer and its last send's class", () => {
    const circuitOpen = deadLetter({ errorClass: 'CIRCUIT_OPEN', lastAttemptErrorClass: 'HTTP_STATUS', lastHttpStatus: 500 });
    expect(isSelected(circuitOpen, { lastStatuses: [500] })).toBe(true);
    expect(isSelected(circuitOpen, { errorClasses: ['HTTP_STATUS'] })).toBe(true);
    expect(isSelected(circuitOpen, { errorClasses: ['CIRCUIT_OPEN'] })).toBe(true);
    expect(isSelected(circuitOpen, { errorClasses: ['TIMEOUT'] })).toBe(false);
  });

  test('when several filters are given, then every one must hold', () => {
    expect(isSelected(letter, { partners: ['acme'], lastStatuses: [500] })).toBe(true);
    expect(isSelected(letter, { partners: ['acme'], lastStatuses: [404] })).toBe(false);
  });

  test('when the value the filter reads is unknown (undecodable), then the filter does not select it; --undecodable does', () => {
    const unreadable = deadLetter({ undecodable: 'garbage', partnerId: null, lastHttpStatus: null });
    expect(isSelected(unreadable, { partners: ['acme'] })).toBe(false);
    expect(isSelected(unreadable, { undecodable: true })).toBe(true);
    expect(isSelected(letter, { undecodable: true })).toBe(false);
  });
});

test('describeSelection gives only the filters given, times and offsets readable', () => {
  expect(
    describeSelection({ partners: ['acme'], since: Date.parse('2026-11-23T08:00:00Z'), offsets: [{ partition: 1, from: 2n, to: 3n }] }),
  ).toEqual({ partners: ['acme'], since: '2026-11-23T08:00:00.000Z', offsets: ['1:2-3'] });
});

test('NamedIds names the delivery ids never seen, whatever the other filters selected', () => {
  const named = new NamedIds({ deliveryIds: ['delivery-1', 'typo'], eventIds: ['event-1'] });
  named.see(deadLetter());
  expect(named.unseen()).toEqual({ flag: '--delivery-id', ids: ['typo'] });
  named.see(deadLetter({ deliveryId: 'typo' }));
  expect(named.unseen()).toBeUndefined();
});
