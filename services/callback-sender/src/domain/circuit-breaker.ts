import { attemptVerdict, type AttemptVerdict, type JudgedAttempt } from './attempt-verdict';
import { FailureWindow } from './failure-window';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Fewest failures within windowMs that open the circuit. Default 5. */
  failureThreshold?: number;
  /** Least share of failures among the attempts counted within windowMs that opens it, in (0, 1]. Default 0.5. */
  failureRate?: number;
  /** How far back attempts count, ms. Default 10000. */
  windowMs?: number;
  /** How long it stays open before one probe is let through, ms. Default 30000. */
  openMs?: number;
  /** An error answer this slow counts as a failure even to a first attempt (attempt-verdict), ms. Default 5000. */
  slowAnswerMs?: number;
  /** Clock in epoch milliseconds. Default: Date.now. */
  now?: () => number;
}

type ResolvedBreakerOptions = Required<CircuitBreakerOptions>;

function resolveOptions(options: CircuitBreakerOptions): ResolvedBreakerOptions {
  const resolved = {
    failureThreshold: options.failureThreshold ?? 5,
    failureRate: options.failureRate ?? 0.5,
    windowMs: options.windowMs ?? 10_000,
    openMs: options.openMs ?? 30_000,
    slowAnswerMs: options.slowAnswerMs ?? 5_000,
    now: options.now ?? Date.now,
  };
  if (!Number.isInteger(resolved.failureThreshold) || resolved.failureThreshold < 1) {
    throw new RangeError(`failureThreshold must be a whole number of at least 1, got ${resolved.failureThreshold}`);
  }
  if (!(resolved.failureRate > 0 && resolved.failureRate <= 1)) {
    throw new RangeError(`failureRate must be more than 0 and at most 1, got ${resolved.failureRate}`);
  }
  for (const name of ['windowMs', 'openMs', 'slowAnswerMs'] as const) {
    const value = resolved[name];
    if (!Number.isFinite(value) || value < (name === 'windowMs' ? 1 : 0)) {
      throw new RangeError(`${name} must be a number of milliseconds of at least ${name === 'windowMs' ? 1 : 0}, got ${value}`);
    }
  }
  return resolved;
}

/**
 * One partner's circuit. It opens when, within the last windowMs, at least failureThreshold
 * attempts failed and they are at least failureRate of the attempts counted; then no attempts
 * are made for openMs, and a single probe decides whether the partner is back (success closes the
 * circuit) or not (failure opens it for another openMs). What counts as a failure is
 * attempt-verdict's: timeouts, refused connections and slow answers always, an error answered
 * quickly only to a retry; so a partner that refuses each event once and takes its retry is
 * never cut off, while one that hangs or refuses connections is within a few attempts.
 * Pure logic: callers report each attempt's outcome.
 */
export class CircuitBreaker {
  readonly #options: ResolvedBreakerOptions;
  readonly #onStateChange: (state: BreakerState) => void;
  readonly #window: FailureWindow;
  #state: BreakerState = 'closed';
  /** While open: when the probe may go. While half_open: when the probe is presumed lost. */
  #until = 0;

  constructor(options: CircuitBreakerOptions = {}, onStateChange: (state: BreakerState) => void = () => undefined) {
    this.#options = resolveOptions(options);
    this.#onStateChange = onStateChange;
    this.#window = new FailureWindow(this.#options.windowMs);
  }

  /** The state as last changed; an open circuit whose openMs has passed stays 'open' until tryAcquire lets the probe go. */
  get state(): BreakerState {
    return this.#state;
  }

  /**
   * Whether an attempt may be made now: closed → yes; open → no until openMs passed, then exactly
   * ONE probe is allowed (state half_open) and others are refused until the probe reports. A probe
   * that has not reported within openMs is presumed lost (its caller died), and another is let
   * through, so a lost report cannot wedge the partner's circuit for good.
   */
  tryAcquire(): boolean {
    if (this.#state === 'closed') return true;
    const now = this.#options.now();
    if (now < this.#until) return false;
    this.#until = now + this.#options.openMs;
    this.#transition('half_open');
    return true;
  }

  /**
   * An attempt a person asked for (a retry now) goes whatever the state and is the probe: an open
   * circuit turns half open, so what the attempt comes to (recordAttempt) closes or re-opens it.
   * A partner's operator who fixed its endpoint need not wait out openMs to find out.
   */
  probeNow(): void {
    if (this.#state !== 'open') return;
    this.#until = this.#options.now() + this.#options.openMs;
    this.#transition('half_open');
  }

  /** Reports an attempt (number `attempt`, 1 = the event's first) by what it came to: see attempt-verdict. */
  recordAttempt(outcome: JudgedAttempt, attempt: number): AttemptVerdict {
    const verdict = attemptVerdict(outcome, attempt, this.#options.slowAnswerMs);
    if (verdict === 'success') this.recordSuccess();
    else if (verdict === 'failure') this.recordFailure();
    else this.recordInconclusive();
    return verdict;
  }

  /** An attempt succeeded: counts against the failures; the probe succeeding closes the circuit. */
  recordSuccess(): void {
    // A report while open comes from an attempt begun before the circuit opened: the probe decides.
    if (this.#state === 'open') return;
    if (this.#state === 'half_open') return this.#transition('closed');
    this.#window.add(this.#options.now(), false);
  }

  /** An attempt failed: may open the circuit (see the class); the probe failing re-opens it for a new openMs. */
  recordFailure(): void {
    if (this.#state === 'open') return; // a late report from before the circuit opened: the window stands
    const now = this.#options.now();
    if (this.#state === 'closed') {
      this.#window.add(now, true);
      const { successes, failures } = this.#window.counts(now);
      if (failures < this.#options.failureThreshold || failures < this.#options.failureRate * (successes + failures)) return;
    }
    this.#until = now + this.#options.openMs;
    this.#transition('open');
  }

  /**
   * An attempt that says nothing of the partner's health: nothing is counted. A probe that came to
   * this decided nothing either, so the next record may probe at once (one attempt at a time).
   */
  recordInconclusive(): void {
    if (this.#state === 'half_open') this.#until = this.#options.now();
  }

  /**
   * When an open circuit will allow a probe (epoch ms), for routing skipped deliveries; while the
   * probe is out, when another would be let through. Undefined when closed.
   */
  get retryAt(): number | undefined {
    return this.#state === 'closed' ? undefined : this.#until;
  }

  #transition(state: BreakerState): void {
    // Whether it opens or closes, what came before is decided: a closed circuit counts afresh.
    if (state !== 'half_open') this.#window.clear();
    if (state === this.#state) return;
    this.#state = state;
    this.#onStateChange(state);
  }
}

/** One CircuitBreaker per partner, made on first use, all with the same options. */
export class PartnerBreakers {
  readonly #breakers = new Map<string, CircuitBreaker>();
  readonly #options: CircuitBreakerOptions;
  readonly #onStateChange: ((partnerId: string, state: BreakerState) => void) | undefined;

  constructor(options: CircuitBreakerOptions = {}, onStateChange?: (partnerId: string, state: BreakerState) => void) {
    resolveOptions(options); // bad options fail here, not at the first partner
    this.#options = options;
    this.#onStateChange = onStateChange;
  }

  for(partnerId: string): CircuitBreaker {
    let breaker = this.#breakers.get(partnerId);
    if (!breaker) {
      breaker = new CircuitBreaker(this.#options, (state) => this.#onStateChange?.(partnerId, state));
      this.#breakers.set(partnerId, breaker);
      // Reported from the start, so a partner's circuit has a series (0, closed) before it first changes.
      this.#onStateChange?.(partnerId, breaker.state);
    }
    return breaker;
  }

  /** Each known partner's state, for metrics and the ops endpoint. */
  states(): Map<string, BreakerState> {
    return new Map([...this.#breakers].map(([partnerId, breaker]) => [partnerId, breaker.state]));
  }
}
