import { CircuitBreaker, PartnerBreakers, type BreakerState, type CircuitBreakerOptions } from '../../src/domain/circuit-breaker';

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  const clock = { now: start, advance: (ms: number) => (clock.now += ms), read: () => clock.now };
  return clock;
}

function breakerWith(options: Omit<CircuitBreakerOptions, 'now'> = {}) {
  const clock = manualClock();
  const changes: BreakerState[] = [];
  const breaker = new CircuitBreaker({ failureThreshold: 3, openMs: 10_000, ...options, now: clock.read }, (state) => changes.push(state));
  return { breaker, clock, changes };
}

function fail(breaker: CircuitBreaker, times: number): void {
  for (let i = 0; i < times; i++) breaker.recordFailure();
}

describe('CircuitBreaker', () => {
  it('when new, then it is closed and lets attempts through', () => {
    const { breaker } = breakerWith();
    expect(breaker.state).toBe('closed');
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.retryAt).toBeUndefined();
  });

  it('when failures in a row stay below the threshold, then it stays closed', () => {
    const { breaker, changes } = breakerWith();
    fail(breaker, 2);
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual([]);
  });

  it('when successes outnumber the failures in the window, then it stays closed past the threshold', () => {
    const { breaker } = breakerWith();
    fail(breaker, 2);
    for (let i = 0; i < 4; i++) breaker.recordSuccess();
    fail(breaker, 1); // 3 failures of 7: below half
    expect(breaker.state).toBe('closed');
    fail(breaker, 1); // 4 of 8: half
    expect(breaker.state).toBe('open');
  });

  it('when failures have left the window, then they no longer count', () => {
    const { breaker, clock } = breakerWith({ windowMs: 10_000 });
    fail(breaker, 2);
    clock.advance(10_000);
    fail(breaker, 2);
    expect(breaker.state).toBe('closed');
    fail(breaker, 1);
    expect(breaker.state).toBe('open');
  });

  it('when failures make less than failureRate of the attempts counted, then it stays closed', () => {
    const { breaker } = breakerWith({ failureRate: 0.8 });
    for (let i = 0; i < 3; i++) breaker.recordSuccess();
    fail(breaker, 11); // 11 of 14: 79 %
    expect(breaker.state).toBe('closed');
    fail(breaker, 1);
    expect(breaker.state).toBe('open');
  });

  it('when attempts are inconclusive, then they count neither way', () => {
    const { breaker } = breakerWith();
    fail(breaker, 2);
    for (let i = 0; i < 100; i++) breaker.recordInconclusive();
    expect(breaker.state).toBe('closed');
    fail(breaker, 1);
    expect(breaker.state).toBe('open');
  });

  it('when failures in a row reach the threshold, then it opens and refuses attempts until openMs has passed', () => {
    const { breaker, clock } = breakerWith();
    fail(breaker, 3);

    expect(breaker.state).toBe('open');
    expect(breaker.retryAt).toBe(clock.now + 10_000);
    expect(breaker.tryAcquire()).toBe(false);
    clock.advance(9_999);
    expect(breaker.tryAcquire()).toBe(false);
  });

  it('when the defaults apply, then 5 failures open it for 30 s', () => {
    const clock = manualClock();
    const breaker = new CircuitBreaker({ now: clock.read });
    fail(breaker, 4);
    expect(breaker.state).toBe('closed');
    breaker.recordFailure();
    expect(breaker.retryAt).toBe(clock.now + 30_000);
  });

  it('when openMs has passed, then exactly one probe is let through (half_open) and the rest are refused', () => {
    const { breaker, clock } = breakerWith();
    fail(breaker, 3);
    clock.advance(10_000);

    expect([breaker.tryAcquire(), breaker.tryAcquire(), breaker.tryAcquire()]).toEqual([true, false, false]);
    expect(breaker.state).toBe('half_open');
  });

  it('when the probe succeeds, then it closes and lets every attempt through', () => {
    const { breaker, clock } = breakerWith();
    fail(breaker, 3);
    clock.advance(10_000);
    breaker.tryAcquire();

    breaker.recordSuccess();

    expect(breaker.state).toBe('closed');
    expect(breaker.retryAt).toBeUndefined();
    expect([breaker.tryAcquire(), breaker.tryAcquire()]).toEqual([true, true]);
    fail(breaker, 2);
    expect(breaker.state).toBe('closed'); // the count started again
  });

  it('when the probe fails, then it re-opens for a new openMs window', () => {
    const { breaker, clock } = breakerWith();
    fail(breaker, 3);
    clock.advance(12_000);
    breaker.tryAcquire();

    breaker.recordFailure();

    expect(breaker.state).toBe('open');
    expect(breaker.retryAt).toBe(clock.now + 10_000);
    expect(breaker.tryAcquire()).toBe(false);
    clock.advance(10_000);
    expect(breaker.tryAcquire()).toBe(true);
  });

  it('when the probe is inconclusive, then it stays half open and the next record probes at once', () => {
    const { breaker, clock, changes } = breakerWith();
    fail(breaker, 3);
    clock.advance(10_000);
    expect(breaker.tryAcquire()).toBe(true);

    breaker.recordInconclusive();

    expect(breaker.state).toBe('half_open');
    expect([breaker.tryAcquire(), breaker.tryAcquire()]).toEqual([true, false]);
    breaker.recordSuccess();
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual(['open', 'half_open', 'closed']);
  });

  it('when the probe never reports, then another probe is let through after openMs', () => {
    const { breaker, clock } = breakerWith();
    fail(breaker, 3);
    clock.advance(10_000);
    breaker.tryAcquire();

    expect(breaker.retryAt).toBe(clock.now + 10_000);
    clock.advance(9_999);
    expect(breaker.tryAcquire()).toBe(false);
    clock.advance(1);
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.state).toBe('half_open');
  });

  it('when reports arrive late from attempts begun before it opened, then the open window stands', () => {
    const { breaker, clock } = breakerWith();
    fail(breaker, 3);
    const retryAt = breaker.retryAt;
    clock.advance(5_000);

    breaker.recordFailure();
    breaker.recordSuccess();

    expect(breaker.state).toBe('open');
    expect(breaker.retryAt).toBe(retryAt);
  });

  it('when attempts are reported by outcome, then a flaky partner (error to each first attempt, 200 to its retry) keeps it closed', () => {
    const { breaker, changes } = breakerWith();
    for (let event = 0; event < 50; event++) {
      expect(breaker.recordAttempt({ kind: 'failed', httpStatus: 500, latencyMs: 3 }, 1)).toBe('inconclusive');
    }
    for (let event = 0; event < 50; event++) expect(breaker.recordAttempt({ kind: 'delivered' }, 2)).toBe('success');
    expect(changes).toEqual([]);
  });

  it('when attempts are reported by outcome, then timeouts open it, as do error answers to retries', () => {
    const timedOut = breakerWith();
    for (let i = 0; i < 3; i++) timedOut.breaker.recordAttempt({ kind: 'failed', httpStatus: null, latencyMs: 1_000 }, 1);
    expect(timedOut.breaker.state).toBe('open');
    const refusingRetries = breakerWith();
    for (let i = 0; i < 3; i++) refusingRetries.breaker.recordAttempt({ kind: 'failed', httpStatus: 503, latencyMs: 2 }, 2);
    expect(refusingRetries.breaker.state).toBe('open');
  });

  it('when its state changes, then onStateChange hears each transition once', () => {
    const { breaker, clock, changes } = breakerWith();
    fail(breaker, 4); // the fourth failure finds it open already
    clock.advance(10_000);
    breaker.tryAcquire();
    breaker.recordFailure();
    clock.advance(10_000);
    breaker.tryAcquire();
    breaker.recordSuccess();
    breaker.recordSuccess();

    expect(changes).toEqual(['open', 'half_open', 'open', 'half_open', 'closed']);
  });

  it.each([
    { failureThreshold: 0 },
    { failureThreshold: 1.5 },
    { openMs: -1 },
    { openMs: Number.NaN },
    { failureRate: 0 },
    { failureRate: 1.5 },
    { failureRate: Number.NaN },
    { windowMs: 0 },
    { slowAnswerMs: -1 },
  ])('when the options are %j, then construction throws', (options) => {
    expect(() => new CircuitBreaker(options)).toThrow(RangeError);
    expect(() => new PartnerBreakers(options)).toThrow(RangeError);
  });
});

describe('PartnerBreakers', () => {
  it('when partners fail, then each has its own circuit and onStateChange names the partner', () => {
    const clock = manualClock();
    const changes: Array<[string, BreakerState]> = [];
    const breakers = new PartnerBreakers({ failureThreshold: 2, openMs: 1_000, now: clock.read }, (partnerId, state) =>
      changes.push([partnerId, state]),
    );

    fail(breakers.for('acme'), 2);
    breakers.for('globex').recordFailure();

    expect(breakers.for('acme')).toBe(breakers.for('acme'));
    expect(breakers.for('acme').tryAcquire()).toBe(false);
    expect(breakers.for('globex').tryAcquire()).toBe(true);
    expect(breakers.states()).toEqual(
      new Map([
        ['acme', 'open'],
        ['globex', 'closed'],
      ]),
    );
    // Each circuit is reported closed when made (so its gauge exists from the start), then as it changes.
    expect(changes).toEqual([
      ['acme', 'closed'],
      ['acme', 'open'],
      ['globex', 'closed'],
    ]);
  });
});
