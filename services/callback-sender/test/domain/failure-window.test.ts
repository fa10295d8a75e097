import { FailureWindow } from '../../src/domain/failure-window';

describe('FailureWindow', () => {
  it('when outcomes are added, then it counts successes and failures apart', () => {
    const window = new FailureWindow(10_000);
    window.add(1_000, true);
    window.add(1_500, false);
    window.add(9_000, false);
    expect(window.counts(9_000)).toEqual({ successes: 2, failures: 1 });
  });

  it('when an outcome is a whole window old, then it no longer counts; one slice younger still does', () => {
    const window = new FailureWindow(10_000);
    window.add(0, true);
    window.add(1_000, true);
    expect(window.counts(9_999)).toEqual({ successes: 0, failures: 2 });
    expect(window.counts(10_000)).toEqual({ successes: 0, failures: 1 });
    expect(window.counts(11_000)).toEqual({ successes: 0, failures: 0 });
  });

  it('when the clock steps back, then the outcome counts in the newest slice and nothing is lost', () => {
    const window = new FailureWindow(10_000);
    window.add(5_000, false);
    window.add(2_000, true);
    expect(window.counts(5_000)).toEqual({ successes: 1, failures: 1 });
  });

  it('when cleared, then it counts nothing', () => {
    const window = new FailureWindow(10_000);
    window.add(1, true);
    window.clear();
    expect(window.counts(1)).toEqual({ successes: 0, failures: 0 });
  });
});
