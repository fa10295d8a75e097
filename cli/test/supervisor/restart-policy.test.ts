import { RestartPolicy } from '../../src/supervisor/restart-policy';

describe('RestartPolicy', () => {
  test('when a process crashes at once every time, then the waits double and the 5th crash gives up', () => {
    const policy = new RestartPolicy();
    const decisions = [1, 2, 3, 4, 5].map(() => policy.onCrash(100));
    expect(decisions.slice(0, 4)).toEqual([
      { giveUp: false, delayMs: 500, fastCrashes: 1 },
      { giveUp: false, delayMs: 1000, fastCrashes: 2 },
      { giveUp: false, delayMs: 2000, fastCrashes: 3 },
      { giveUp: false, delayMs: 4000, fastCrashes: 4 },
    ]);
    expect(decisions[4]).toEqual({ giveUp: true, fastCrashes: 5, windowMs: 60_000 });
    expect(policy.describe()).toBe('5 crashes in a row, each within 60 s of its start');
  });

  test('when a run outlasts the window, then the count starts again and the wait is the first one', () => {
    const policy = new RestartPolicy({ maxFastCrashes: 3, fastCrashWindowMs: 1000 });
    policy.onCrash(10);
    policy.onCrash(10);
    expect(policy.onCrash(1000)).toEqual({ giveUp: false, delayMs: 500, fastCrashes: 0 });
    expect(policy.onCrash(10)).toMatchObject({ giveUp: false, fastCrashes: 1 });
    expect(policy.onCrash(10)).toMatchObject({ giveUp: false, fastCrashes: 2 });
    expect(policy.onCrash(10)).toMatchObject({ giveUp: true });
  });

  test('when crashes are not counted (the broker was away), then they never add up to giving up', () => {
    const policy = new RestartPolicy({ maxFastCrashes: 2 });
    for (let i = 0; i < 10; i++) expect(policy.onCrash(10, false)).toEqual({ giveUp: false, delayMs: 500, fastCrashes: 0 });
    expect(policy.onCrash(10)).toMatchObject({ giveUp: false, fastCrashes: 1 });
  });

  test('when the waits would pass the cap, then they stay at it', () => {
    const policy = new RestartPolicy({ maxFastCrashes: 100, initialDelayMs: 1000, maxDelayMs: 3000 });
    const delays = [1, 2, 3, 4].map(() => policy.onCrash(0)).map((d) => (d.giveUp ? -1 : d.delayMs));
    expect(delays).toEqual([1000, 2000, 3000, 3000]);
  });
});
