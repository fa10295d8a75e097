export interface PartnerLimiterOptions {
  /** Deliveries in flight per partner across this process. Default 16. */
  perPartner?: number;
}

/** A partner's slots: how many tasks run, and who waits for one, first come first served. */
interface PartnerSlots {
  running: number;
  waiting: Array<() => void>;
}

/**
 * Bounds the deliveries in flight to each partner, so one slow partner holds at most perPartner
 * of the process's concurrency and the others go on undelayed. Tasks beyond the bound wait in a
 * FIFO queue per partner; a slot is freed when its task settles, whether it resolves or throws.
 */
export class PartnerLimiter {
  readonly #perPartner: number;
  readonly #partners = new Map<string, PartnerSlots>();

  constructor(options: PartnerLimiterOptions = {}) {
    this.#perPartner = options.perPartner ?? 16;
    if (!Number.isInteger(this.#perPartner) || this.#perPartner < 1) {
      throw new RangeError(`perPartner must be a whole number of at least 1, got ${this.#perPartner}`);
    }
  }

  async run<T>(partnerId: string, task: () => Promise<T>): Promise<T> {
    await this.#acquire(partnerId);
    try {
      return await task();
    } finally {
      this.#release(partnerId);
    }
  }

  #acquire(partnerId: string): Promise<void> {
    let slots = this.#partners.get(partnerId);
    if (!slots) this.#partners.set(partnerId, (slots = { running: 0, waiting: [] }));
    if (slots.running < this.#perPartner) {
      slots.running += 1;
      return Promise.resolve();
    }
    const queue = slots.waiting;
    return new Promise((resolve) => queue.push(resolve));
  }

  /** Hands the slot straight to the next waiter (it stays counted as running), or frees it. */
  #release(partnerId: string): void {
    const slots = this.#partners.get(partnerId);
    if (!slots) return;
    const next = slots.waiting.shift();
    if (next) return next();
    slots.running -= 1;
    // Partners come and go; an idle one leaves no entry behind.
    if (slots.running === 0) this.#partners.delete(partnerId);
  }
}
