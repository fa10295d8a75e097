/** How many slices a window is kept in: outcomes leave it within a tenth of its length of ageing out. */
const SLICES = 10;

interface Slice {
  /** Which slice of time this is: floor(at / sliceMs). */
  index: number;
  successes: number;
  failures: number;
}

/**
 * Counts the successes and failures of the last `windowMs`, in SLICES fixed slices of time, so
 * its memory stays the same whatever a partner's rate (a list of outcomes would hold ~40,000 for
 * a busy partner over 10 s). An outcome ages out between windowMs − windowMs/SLICES and windowMs
 * after it was added.
 */
export class FailureWindow {
  readonly #sliceMs: number;
  readonly #slices: Slice[] = [];

  constructor(windowMs: number) {
    this.#sliceMs = Math.max(1, windowMs / SLICES);
  }

  add(at: number, failed: boolean): void {
    const index = Math.floor(at / this.#sliceMs);
    this.#expire(index);
    let last = this.#slices[this.#slices.length - 1];
    // A clock that stepped back counts in the newest slice: the slices stay in order.
    if (!last || index > last.index) this.#slices.push((last = { index, successes: 0, failures: 0 }));
    if (failed) last.failures += 1;
    else last.successes += 1;
  }

  /** The counts within the window that ends at `at`. */
  counts(at: number): { successes: number; failures: number } {
    this.#expire(Math.floor(at / this.#sliceMs));
    let successes = 0;
    let failures = 0;
    for (const slice of this.#slices) {
      successes += slice.successes;
      failures += slice.failures;
    }
    return { successes, failures };
  }

  clear(): void {
    this.#slices.length = 0;
  }

  /** Drops the slices that have left the window ending in slice `current`. */
  #expire(current: number): void {
    while (this.#slices.length > 0 && this.#slices[0]!.index <= current - SLICES) this.#slices.shift();
  }
}
