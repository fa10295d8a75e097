import { nextTierAfterFailure, retryScheduleMs, tierAtLeast } from '../../src/retry-tiers/tier-schedule';

const delays = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];

describe('nextTierAfterFailure', () => {
  test('the first send failing goes to tier 1 after its delay; the 8th retry failing goes to the dead-letter topic', () => {
    expect(nextTierAfterFailure(1, delays, 1_000)).toEqual({ kind: 'retry', tier: 1, dueAt: 6_000 });
    expect(nextTierAfterFailure(8, delays, 0)).toEqual({ kind: 'retry', tier: 8, dueAt: 21_600_000 });
    expect(nextTierAfterFailure(9, delays, 0)).toEqual({ kind: 'dead-letter' });
  });

  test('a retry that must wait longer than its tier (a Retry-After) goes to the first later tier whose delay covers it, at most the longest', () => {
    expect(nextTierAfterFailure(1, delays, 1_000, 60_000)).toEqual({ kind: 'retry', tier: 3, dueAt: 121_000 });
    expect(nextTierAfterFailure(2, delays, 0, 1_000)).toEqual({ kind: 'retry', tier: 2, dueAt: 30_000 });
    expect(nextTierAfterFailure(1, delays, 0, 10 * 3_600_000)).toEqual({ kind: 'retry', tier: 8, dueAt: 21_600_000 });
  });

  test('the default delays escalate and span hours', () => {
    expect(delays.every((d, i) => i === 0 || d > delays[i - 1]!)).toBe(true);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThan(10 * 3_600_000);
  });
});

describe('tierAtLeast', () => {
  test('the first tier from the given one whose delay is long enough; else the longest from there, whatever the order of the delays', () => {
    expect(tierAtLeast(0, 1, delays)).toBe(1);
    expect(tierAtLeast(5_001, 1, delays)).toBe(2);
    expect(tierAtLeast(1_000, 4, delays)).toBe(4);
    expect(tierAtLeast(Infinity, 1, delays)).toBe(8);
    expect(tierAtLeast(Infinity, 1, [300, 1_500, 300, 300])).toBe(2);
    expect(tierAtLeast(Infinity, 3, [300, 1_500, 300, 300])).toBe(3);
  });
});

describe('retryScheduleMs', () => {
  test("is the tiers' delays added up", () => {
    expect(retryScheduleMs([1_000, 2_000, 4_000])).toBe(7_000);
    expect(retryScheduleMs([])).toBe(0);
  });
});
