export type BreakerState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Failures in a row that open the circuit. Default 5. */
  failureThreshold?: number;
  /** How long it stays open before one probe is let through, ms. Default 30000. */
  openMs?: number;
  /** Clock in epoch milliseconds. Default: Date.now. */
  now?: () => number;
}

interface ResolvedBreakerOptions {
  failureThreshold: number;
  openMs: number;
  now: () => number;
}

function resolveOptions(options: CircuitBreakerOptions): ResolvedBreakerOptions {
  const resolved = { failureThreshold: options.failureThreshold ?? 5, openMs: options.openMs ?? 30_000, now: options.now ?? Date.now };
  if (!Number.isInteger(resolved.failureThreshold) || resolved.failureThreshold < 1) {
    throw new RangeError(`failureThreshold must be a whole number of at least 1, got ${resolved.failureThreshold}`);
  }
  if (!Number.isFinite(resolved.openMs) || resolved.openMs < 0) {
    throw new RangeError(`openMs must be a number of milliseconds of at least 0, got ${resolved.openMs}`);
  }
  return resolved;
}

/**
 * One partner's circuit: after failureThreshold failures in a row no attempts are made for openMs,
 * then a single probe decides whether the partner is back (success closes the circuit) or not
 * (failure opens it for another openMs). Pure logic: callers report each attempt's outcome.
 */
export class CircuitBreaker {
  readonly #options: ResolvedBreakerOptions;
  readonly #onStateChange: (state: BreakerState) => void;
  #state: BreakerState = 'closed';
  #failuresInRow = 0;
  /** While open: when the probe may go. While half_open: when the probe is presumed lost. */
  #until = 0;

  constructor(options: CircuitBreakerOptions = {}, onStateChange: (state: BreakerState) => void = () => undefined) {
    this.#options = resolveOptions(options);
    this.#onStateChange = onStateChange;
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

  /** An attempt succeeded: the circuit closes and the failure count starts again. */
  recordSuccess(): void {
    this.#failuresInRow = 0;
    // A success reported while open comes from an attempt begun before the circuit opened: the probe decides.
    if (this.#state === 'half_open') this.#transition('closed');
  }

  /** An attempt failed: counts towards the threshold; the probe failing re-opens the circuit for a new openMs. */
  recordFailure(): void {
    if (this.#state === 'open') return; // a late report from before the circuit opened: the window stands
    this.#failuresInRow += 1;
    if (this.#state === 'half_open' || this.#failuresInRow >= this.#options.failureThreshold) {
      this.#until = this.#options.now() + this.#options.openMs;
      this.#transition('open');
    }
  }

  /**
   * When an open circuit will allow a probe (epoch ms), for routing skipped deliveries; while the
   * probe is out, when another would be let through. Undefined when closed.
   */
  get retryAt(): number | undefined {
    return this.#state === 'closed' ? undefined : this.#until;
  }

  #transition(state: BreakerState): void {
    if (state === 'closed') this.#failuresInRow = 0;
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
    }
    return breaker;
  }

  /** Each known partner's state, for metrics and the ops endpoint. */
  states(): Map<string, BreakerState> {
    return new Map([...this.#breakers].map(([partnerId, breaker]) => [partnerId, breaker.state]));
  }
}
