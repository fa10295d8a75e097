/*
 * Natural batching of one kind of statement: what is asked while the store is busy with earlier
 * statements goes together into the next one. Idle, a request's statement leaves at once (no
 * linger, so no added latency); under load each statement and each commit (each WAL flush) carries
 * many requests' rows, so the store's work per webhook falls as the rate rises, as a Kafka
 * producer's batches do. `bench:ingress` measured one statement per claim and one per completion
 * at 2 commits per webhook, the PostgreSQL server then using most of a core (docs/benchmarks.md).
 */

/** Runs one statement for `items` and resolves with one result per item, in order. */
export type BatchStatement<I, O> = (items: readonly I[]) => Promise<O[]>;

interface Pending<I, O> {
  item: I;
  /** Epoch ms after which the item is no longer wanted (its request has been answered). */
  deadline: number;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/** What a full queue or an item past its deadline is refused with (the caller's "retry later"). */
export type RefusalOf = (why: string) => Error;

export class StatementBatches<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private running = 0;

  /**
   * @param statement one statement (and commit) for a batch
   * @param refusal the error a refused item is rejected with
   * @param maxInFlight statements running at once: two lets one batch fill while another commits
   * @param maxItems most items in one statement (bounds its size and its time)
   * @param maxQueued most items waiting: a store that stopped answering holds each statement up to
   *   its query timeout, and what arrives meanwhile is refused at once rather than piled up
   */
  constructor(
    private readonly statement: BatchStatement<I, O>,
    private readonly refusal: RefusalOf,
    private readonly maxInFlight = 2,
    private readonly maxItems = 500,
    private readonly maxQueued = 2 * 500,
  ) {}

  /** `item`'s result, from the next statement that has room for it, if that starts before `deadline` (epoch ms). */
  submit(item: I, deadline: number): Promise<O> {
    if (this.queue.length >= this.maxQueued) return Promise.reject(this.refusal(`${this.queue.length} writes are waiting for the store`));
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, deadline, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.running < this.maxInFlight && this.queue.length > 0) {
      // An item whose request was answered meanwhile is not written: a claim made after its partner
      // was told 503 would hold the key (and its event be written) for a request given up on.
      const now = Date.now();
      for (const expired of this.queue.filter((p) => p.deadline <= now))
        expired.reject(this.refusal('the store did not take the write in time'));
      this.queue = this.queue.filter((p) => p.deadline > now);
      const batch = this.queue.splice(0, this.maxItems);
      if (batch.length === 0) return;
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.flush();
      });
    }
  }

  private async run(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const results = await this.statement(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      // Every request of the batch fails as the statement did (the store unavailable: 503 to each).
      for (const p of batch) p.reject(error);
    }
  }
}
